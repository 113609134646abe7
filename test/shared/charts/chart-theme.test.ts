// Chart theme from CSS custom properties: values taken as given, fallbacks per light/dark, palette helpers.

import { describe, expect, test } from 'vitest';
import { runColor, themeFromProperties, withAlpha } from '../../../src/shared/charts/chart-theme';

const props =
  (values: Record<string, string>) =>
  (name: string): string =>
    values[name] ?? '';

describe('themeFromProperties', () => {
  test('the page’s custom properties land in the theme', () => {
    const t = themeFromProperties(
      props({ '--panel': '#ffffff', '--text': ' #111111 ', '--border': '#222222', '--accent': '#333333' }),
      () => true,
    );
    expect(t).toMatchObject({
      panel: '#ffffff',
      text: '#111111',
      grid: '#222222',
      focus: '#333333',
      dark: false,
    });
  });

  test('a dark panel colour picks the dark fallbacks, whatever the OS prefers', () => {
    const t = themeFromProperties(props({ '--panel': '#1a1f25' }), () => false);
    expect(t).toMatchObject({ dark: true, text: '#e6e9ed', grid: '#2c333b', critical: '#f87171' });
  });

  test('a panel colour it cannot judge asks the OS preference', () => {
    expect(themeFromProperties(props({ '--panel': 'rgb(0, 0, 0)' }), () => true).dark).toBe(true);
    expect(themeFromProperties(props({ '--panel': 'rgb(0, 0, 0)' }), () => false).dark).toBe(false);
  });

  test('nothing set: the light defaults', () => {
    const t = themeFromProperties(props({}), () => false);
    expect(t).toMatchObject({
      panel: '#ffffff',
      text: '#1b1f24',
      muted: '#5b6470',
      warning: '#d97706',
      dark: false,
    });
  });
});

test('palette cycles; withAlpha turns #rrggbb into rgba()', () => {
  expect(runColor(7)).toBe(runColor(0));
  expect(runColor(1)).not.toBe(runColor(0));
  expect(withAlpha('#2563eb', 0.28)).toBe('rgba(37, 99, 235, 0.28)');
});

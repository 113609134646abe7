// One live line chart for one tag: data appended in place, redrawn at most once per animation frame.

import {
  Chart,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
  type ChartDataset,
} from 'chart.js';
/** Points as they arrive from the core: typed arrays with NaN kept. */
export interface Points {
  steps: ArrayLike<number>;
  values: ArrayLike<number>;
}

Chart.register(LineController, LineElement, PointElement, LinearScale, Tooltip);

type Point = { x: number; y: number };

export class ChartCard {
  readonly element: HTMLElement;
  private readonly chart: Chart<'line', Point[]>;
  private readonly data: Point[] = [];
  private readonly countEl: HTMLElement;
  private frame = 0;

  constructor(readonly tag: string) {
    this.element = document.createElement('article');
    this.element.className = 'chart-card';
    this.element.dataset.tag = tag;
    const title = document.createElement('h3');
    const name = document.createElement('span');
    name.textContent = tag;
    this.countEl = document.createElement('span');
    this.countEl.className = 'count';
    title.append(name, this.countEl);
    const box = document.createElement('div');
    box.className = 'chart-box';
    const canvas = document.createElement('canvas');
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', `${tag} by step`);
    box.append(canvas);
    this.element.append(title, box);

    const accent =
      getComputedStyle(document.documentElement).getPropertyValue('--accent').trim() || '#2563eb';
    const dataset: ChartDataset<'line', Point[]> = {
      label: tag,
      data: this.data,
      borderColor: accent,
      borderWidth: 1.5,
      pointRadius: 0,
      spanGaps: false,
    };
    this.chart = new Chart<'line', Point[]>(canvas, {
      type: 'line',
      data: { datasets: [dataset] },
      options: {
        parsing: false,
        normalized: true,
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        interaction: { mode: 'nearest', axis: 'x', intersect: false },
        scales: { x: { type: 'linear', title: { display: false } }, y: { type: 'linear' } },
        plugins: { legend: { display: false }, tooltip: { enabled: true } },
      },
    });
    this.updateCount();
  }

  /** Replaces all points (first load). */
  setAll(cols: Points): void {
    this.data.length = 0;
    this.append(cols);
  }

  append(cols: Points): void {
    for (let i = 0; i < cols.steps.length; i++) {
      const y = cols.values[i]!;
      // Non-finite values break the line rather than drawing to infinity.
      this.data.push({ x: cols.steps[i]!, y: Number.isFinite(y) ? y : Number.NaN });
    }
    this.schedule();
  }

  get points(): number {
    return this.data.length;
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.chart.update('none');
      this.updateCount();
    });
  }

  private updateCount(): void {
    this.element.dataset.points = String(this.data.length);
    this.countEl.textContent = `${this.data.length} pts`;
  }

  destroy(): void {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.chart.destroy();
    this.element.remove();
  }
}

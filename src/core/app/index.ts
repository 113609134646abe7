// Public surface of the app core: AppCore, its bus, the renderer feed, tray model and notification limiter.

export { AppCore } from './app-core';
export type { AppCoreOptions, HostCapabilities, NotificationListener } from './app-core';
export { AppBus } from './bus';
export { BULK_DELTA_POINTS, forwardToRenderer, toRendererMessage } from './renderer-feed';
export type { RendererMessage } from './renderer-feed';
export { NotificationLimiter } from './notify-limiter';
export type { PlannedNotification } from './notify-limiter';
export { buildTrayModel, formatNumber } from './tray-model';
export type { TrayAlertItem, TrayHealth, TrayModel, TrayRunItem } from './tray-model';
export { DEFAULT_SETTINGS } from './settings';
export { epochSummary } from './epoch-summary';
export { openAppStore, openDesktopStore, storePathFromEnv, ELECTRON_BINDING_HINT } from './app-store';
export type { AppStore } from './app-store';

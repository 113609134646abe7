// Renderer entry: picks the transport, makes the one series feed (and its early windows), tells the backend when the first chart is drawn, and mounts the Svelte dashboard.

// First: the backend (the socket's handshake) before any other module's code runs; imports run in this order.
import { backend } from './backend/first-backend';
import { mount } from 'svelte';
import App from './App.svelte';
import { createSeriesFeed } from './charts/series-feed';
import { EarlyWindows } from './charts/early-windows';
import { frameScheduler } from './charts/frame-scheduler';
import './styles.css';

/** One feed per app: a single subscription per push event, routed to the charts that show run+tag. */
const feed = createSeriesFeed(backend);
/** The first screen's series, asked by the grid before its charts are made and taken by them (#36). */
const early = new EarlyWindows((args) => backend.invoke('series.get', args), feed);

// serve holds its background work of the first seconds (judging first reads) until the first chart is drawn: told
// once that frame is done, so the work does not share the cores with it (#36).
frameScheduler().afterFirstDraw(() => setTimeout(() => void backend.invoke('app.firstScreen', {}), 0));

mount(App, { target: document.getElementById('app')!, props: { backend, feed, early } });

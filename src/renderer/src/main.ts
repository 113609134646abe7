// Renderer entry: picks the transport, makes the one series feed and mounts the Svelte dashboard.

import { mount } from 'svelte';
import App from './App.svelte';
import { pickBackend } from './backend/pick';
import { createSeriesFeed } from './charts/series-feed';
import './styles.css';

const backend = pickBackend();
/** One feed per app: a single subscription per push event, routed to the charts that show run+tag. */
const feed = createSeriesFeed(backend);

mount(App, { target: document.getElementById('app')!, props: { backend, feed } });

// A Svelte action calling back once when its element first comes near the viewport (one shared IntersectionObserver).

/** How far outside the viewport an element counts as about to be seen, so charts are ready when scrolled to. */
const MARGIN = '300px 0px';

const callbacks = new WeakMap<Element, () => void>();
let observer: IntersectionObserver | null = null;

function shared(): IntersectionObserver {
  observer ??= new IntersectionObserver(
    (entries) => {
      for (const e of entries) {
        if (!e.isIntersecting) continue;
        const cb = callbacks.get(e.target);
        observer!.unobserve(e.target);
        callbacks.delete(e.target);
        cb?.();
      }
    },
    { rootMargin: MARGIN },
  );
  return observer;
}

/** `use:onFirstVisible={cb}`: cb runs once, the first time the element is within MARGIN of the viewport. */
export function onFirstVisible(node: Element, cb: () => void): { destroy(): void } {
  callbacks.set(node, cb);
  shared().observe(node);
  return {
    destroy() {
      callbacks.delete(node);
      observer?.unobserve(node);
    },
  };
}

// The shown name of a second writer's series (`epoch_loss (validation)`) and the metric it is, for classification.

/** The shown name of a writer's series: the tag, or `tag (label)` for a writer other than the first. */
export function writerTag(tag: string, label: string | null): string {
  return label === null ? tag : `${tag} (${label})`;
}

/** The metric a shown tag is, without a writer's label: `epoch_loss (validation)` → `epoch_loss`. */
export function writerBase(tag: string): string {
  return tag.replace(/ \([^()]*\)$/, '');
}

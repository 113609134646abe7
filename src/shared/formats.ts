// The source formats and read-error kinds of the inspect contract, as plain string unions.

export const SOURCE_FORMATS = [
  'tfevents',
  'csv',
  'json',
  'jsonl',
  'trainer_state',
  'training_progress',
  'wandb',
] as const;
export type SourceFormatName = (typeof SOURCE_FORMATS)[number];

export const READ_ERROR_KINDS = [
  'truncated',
  'bad-length-crc',
  'bad-data-crc',
  'decode',
  'io',
  'too-large',
] as const;
export type ReadErrorKindName = (typeof READ_ERROR_KINDS)[number];

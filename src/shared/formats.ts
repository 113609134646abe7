// The source formats and read-error kinds of the inspect contract, as plain string unions.

export type SourceFormatName =
  | 'tfevents'
  | 'csv'
  | 'json'
  | 'jsonl'
  | 'trainer_state'
  | 'training_progress'
  | 'wandb';

export type ReadErrorKindName =
  | 'truncated'
  | 'bad-length-crc'
  | 'bad-data-crc'
  | 'decode'
  | 'io'
  | 'too-large';

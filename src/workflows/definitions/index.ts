export * from './common';
export * from './assignments';
export * from './messages';

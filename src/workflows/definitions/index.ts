export * from './common';
export * from './assignments';
export * from './messages';
export * from './search-attributes';
export * from './reconcile';
export * from './events';
export * from './rotations';

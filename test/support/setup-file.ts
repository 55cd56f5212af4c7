import '../../src/polyfills.ts';

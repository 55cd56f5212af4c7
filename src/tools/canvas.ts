import { defineTools } from './define.ts';

export const canvasTools = defineTools();

import type { DynamicTool } from '../../shared/types.js';

export const tool: DynamicTool = {
  name: 'reverse_string',
  description: 'Reverse a string',
  schema: {
    type: 'object',
    properties: {
      text: {
        type: 'string',
        description: 'Text to reverse'
      }
    },
    required: ['text']
  },
  async handler(args: Record<string, unknown>) {
    const text = args.text as string;
    return { reversed: text.split('').reverse().join('') };
  },
};

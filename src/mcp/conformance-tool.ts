import { AlmanacError } from "../errors.ts";
import { type AnyToolDefinition, READ_ONLY_ANNOTATIONS, defineTool } from "../tools/define.ts";

/**
 * The official MCP conformance suite's `tools-call-error` scenario calls a
 * tool of this exact name and expects an `isError` result. It is served
 * only when CONFORMANCE_TOOL is "on" (the end-to-end tests set it), never in
 * a normal deployment.
 */
export const conformanceTool: AnyToolDefinition = defineTool({
  name: "test_error_handling",
  title: "Conformance: error handling",
  description: "Always fails; exists only for the MCP conformance suite.",
  inputSchema: {},
  outputSchema: {},
  annotations: READ_ONLY_ANNOTATIONS,
  run: async () => {
    throw new AlmanacError("UNAVAILABLE", "this tool always fails, so clients can test how they handle tool errors");
  },
});

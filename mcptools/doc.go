// Package mcptools is cairn's MCP surface: the tools as data (a registry of
// name, toolset, read-only flag, annotations, static schema and handler),
// personal access tokens, the caller carried in each request's context,
// the one filter that decides which tools a token sees and may call, and
// the stdio and Streamable HTTP transports.
//
// Tool names, descriptions and schemas are static text: nothing from the
// vault ever appears in tools/list (tool-poisoning defence). Every handler
// maps its arguments onto a vault operation, which checks access again.
package mcptools

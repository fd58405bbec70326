package whyterminating

import "github.com/kubeforensics/suite/internal/terminating"

// Result is what one invocation found (terminating.Result): the command prints it, the MCP
// server returns it, and its schema is docs/schema's WhyTerminatingResult.
type Result = terminating.Result

// APIVersion is the apiVersion of the plugin's reports, published with their schemas in
// docs/schema (docs/report.md).
const APIVersion = terminating.APIVersion

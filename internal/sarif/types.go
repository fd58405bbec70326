// Package sarif writes a plugin's findings as SARIF 2.1.0 for code scanning (GitHub's among
// them): one run per invocation, one rule per reason code or lint rule with its help text,
// each result located at a file and line of the repository, with partialFingerprints that
// do not move with line numbers and an automationDetails id (GitHub's category) per entry
// path. It keeps within GitHub's upload limits and says in the run's invocation what it left
// out. It knows nothing of Flux or Kubernetes: the plugins map their results onto Report.
package sarif

// The SARIF log as far as this package writes it (SARIF 2.1.0, OASIS; the property names are
// the specification's).

// Log is the top-level sarifLog object.
type Log struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []Run  `json:"runs"`
}

// Run is one run of one tool.
type Run struct {
	Tool              Tool               `json:"tool"`
	Invocations       []Invocation       `json:"invocations"`
	AutomationDetails *AutomationDetails `json:"automationDetails,omitempty"`
	Results           []Result           `json:"results"`
	// ColumnKind is required by GitHub when regions carry columns; the writer sets none, but
	// states the unit so a consumer never guesses.
	ColumnKind string         `json:"columnKind,omitempty"`
	Properties map[string]any `json:"properties,omitempty"`
}

// Tool names the driver and its rules.
type Tool struct {
	Driver Driver `json:"driver"`
}

// Driver is the tool component that produced the results.
type Driver struct {
	Name           string                `json:"name"`
	Version        string                `json:"version,omitempty"`
	InformationURI string                `json:"informationUri,omitempty"`
	Rules          []ReportingDescriptor `json:"rules"`
}

// ReportingDescriptor is one rule.
type ReportingDescriptor struct {
	ID                   string                  `json:"id"`
	Name                 string                  `json:"name,omitempty"`
	ShortDescription     *Message                `json:"shortDescription,omitempty"`
	FullDescription      *Message                `json:"fullDescription,omitempty"`
	Help                 *Message                `json:"help,omitempty"`
	HelpURI              string                  `json:"helpUri,omitempty"`
	DefaultConfiguration *ReportingConfiguration `json:"defaultConfiguration,omitempty"`
}

// ReportingConfiguration carries a rule's default level.
type ReportingConfiguration struct {
	Level string `json:"level"`
}

// Message is plain text (markdown is never written: text from repositories is not trusted).
type Message struct {
	Text string `json:"text"`
}

// Invocation says how the run went and what the writer left out.
type Invocation struct {
	ExecutionSuccessful        bool           `json:"executionSuccessful"`
	ExitCode                   *int           `json:"exitCode,omitempty"`
	ToolExecutionNotifications []Notification `json:"toolExecutionNotifications,omitempty"`
	Properties                 map[string]any `json:"properties,omitempty"`
}

// Notification is one thing the tool says about its own run.
type Notification struct {
	Level   string  `json:"level"`
	Message Message `json:"message"`
}

// AutomationDetails identifies the run; GitHub takes what precedes the last "/" of ID as the
// analysis category.
type AutomationDetails struct {
	ID string `json:"id"`
}

// Result is one finding.
type Result struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             Message           `json:"message"`
	Locations           []Location        `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Suppressions        []Suppression     `json:"suppressions,omitempty"`
	Properties          map[string]any    `json:"properties,omitempty"`
}

// Location is where a result is.
type Location struct {
	PhysicalLocation PhysicalLocation `json:"physicalLocation"`
}

// PhysicalLocation is a file and, when known, a line.
type PhysicalLocation struct {
	ArtifactLocation ArtifactLocation `json:"artifactLocation"`
	Region           *Region          `json:"region,omitempty"`
}

// ArtifactLocation is a file relative to the repository's top level.
type ArtifactLocation struct {
	URI string `json:"uri"`
}

// Region is a line (1-based).
type Region struct {
	StartLine int `json:"startLine"`
}

// Suppression records that a finding was silenced, and why.
type Suppression struct {
	Kind          string `json:"kind"`
	Justification string `json:"justification,omitempty"`
}

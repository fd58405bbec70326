// Package report is the contract every plugin report keeps (docs/report.md): the envelope each
// Result carries (who wrote it, with which version, and when), the stable reason codes its
// findings carry, and the JSON Schema inferred from a Result type that docs/schema publishes
// and the MCP server declares. It knows no plugin: each plugin's Result embeds Envelope and
// adds its own target and summary.
package report

import (
	"time"

	"github.com/kubeforensics/suite/internal/version"
)

// Reporter names the tool that wrote a report and its build.
type Reporter struct {
	// Name is the plugin, as kubectl names it: why-terminating, flux-chain, safe-retire.
	Name string `json:"name"`
	// Version is the build's version (internal/version): a release tag, a module version, or
	// "dev" for a build from a work tree.
	Version string `json:"version"`
}

// Envelope is what every report carries besides its apiVersion, kind, target, summary and
// verdict: the tool and version that wrote it and when (RFC 3339, UTC).
type Envelope struct {
	Reporter  Reporter `json:"reporter"`
	Timestamp string   `json:"timestamp"`
}

// Sign names tool, at the version of the running build, as the report's writer.
func (e *Envelope) Sign(tool string) {
	e.Reporter = Reporter{Name: tool, Version: version.Get().Version}
}

// Stamp records now as the time the report was written, in UTC to the second.
func (e *Envelope) Stamp(now time.Time) {
	e.Timestamp = now.UTC().Format(time.RFC3339)
}

// Clock is the time source a command stamps its report with; nil means the system clock.
// Tests inject a fixed one so golden files are stable.
type Clock func() time.Time

// Now is the clock's time, the system's when c is nil.
func (c Clock) Now() time.Time {
	if c == nil {
		return time.Now()
	}
	return c()
}

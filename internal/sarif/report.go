package sarif

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/kubeforensics/suite/internal/output"
)

// Format is the -o value of this printer.
const Format output.Format = "sarif"

// SchemaURI and Version name the SARIF specification the log follows.
const (
	SchemaURI = "https://json.schemastore.org/sarif-2.1.0.json"
	Version   = "2.1.0"
)

// The levels of a result.
const (
	Error   = "error"
	Warning = "warning"
	Note    = "note"
)

// FingerprintKey is the partialFingerprints key the writer fills: a hash of the rule, the file
// and the object's identity, never of a line number, so a result keeps its alert when lines
// above it move.
const FingerprintKey = "kubeforensics/v1"

// Rule is one rule of the run: a reason code or a lint rule, with its help text.
type Rule struct {
	ID string
	// Level is the rule's default level (error, warning, note).
	Level string
	// Summary is the one-line description; Help says what to do.
	Summary, Help string
	HelpURI       string
}

// Finding is one result as a plugin states it.
type Finding struct {
	Rule, Level, Message string
	// File is relative to the repository's top level, "" when the finding has none (the
	// writer then places it at Report.Anchor); Line is 1-based, 0 when unknown.
	File string
	Line int
	// Identity is what the finding is about, stable across runs (an object's inventory id and
	// its Kustomization); with Rule and File it makes the fingerprint.
	Identity string
	// Suppressed is the justification of a finding a suppression silenced, "" for none.
	Suppressed string
	// Properties are extra facts for machines (the object, the Kustomization).
	Properties map[string]any
}

// Report is one run: the tool, the entry path it judged, its rules, findings and verdict.
type Report struct {
	Tool, Version, InformationURI string
	// Category is the analysis category, one per tool and entry path, e.g.
	// "kubeforensics/safe-retire/clusters/prod".
	Category string
	Rules    []Rule
	Findings []Finding
	// Anchor is the file a finding without one is placed at (GitHub rejects a whole upload for
	// one result without a location): the entry path's kustomization file, say.
	Anchor string
	// Verdict and ExitCode are the plugin's; an UNKNOWN verdict with no result of level
	// warning or above gets one, so an empty log is never read as SAFE.
	Verdict  string
	ExitCode int
	// Limits bound the log; the zero value means GitHub's (DefaultLimits).
	Limits Limits
}

// UnknownRule is the rule of the result the writer adds when the verdict is UNKNOWN and no
// finding says why.
var UnknownRule = Rule{ID: "verdict-unknown", Level: Warning,
	Summary: "The verdict is UNKNOWN: something was not read or not built, so nothing here is proof of safety.",
	Help:    "Read the tool's text or json output for what it could not evaluate."}

// log builds the SARIF log of r with every result in it (limits are Write's).
func (r Report) log() (Log, error) {
	index := map[string]int{}
	driver := Driver{Name: r.Tool, Version: DriverVersion(r.Version), InformationURI: cmp.Or(r.InformationURI, Homepage), Rules: []ReportingDescriptor{}}
	rules := r.Rules
	if r.needsUnknown() {
		rules = append(append([]Rule{}, rules...), UnknownRule)
	}
	for _, rule := range rules {
		if _, dup := index[rule.ID]; dup {
			return Log{}, fmt.Errorf("sarif: rule %q declared twice", rule.ID)
		}
		index[rule.ID] = len(driver.Rules)
		// GitHub requires fullDescription and help on every rule (the Multitool's GH2012); the
		// short description is the summary's first sentence.
		driver.Rules = append(driver.Rules, ReportingDescriptor{ID: rule.ID, Name: ruleName(rule.ID),
			ShortDescription: &Message{Text: clip(firstSentence(rule.Summary))},
			FullDescription:  &Message{Text: clip(rule.Summary)},
			Help:             &Message{Text: clip(rule.Summary + " " + rule.Help)}, HelpURI: cmp.Or(rule.HelpURI, r.InformationURI),
			DefaultConfiguration: &ReportingConfiguration{Level: rule.Level}})
	}
	findings := r.Findings
	if r.needsUnknown() {
		findings = append(append([]Finding{}, findings...), Finding{Rule: UnknownRule.ID, Level: Warning,
			Message: "The verdict is UNKNOWN (exit " + fmt.Sprint(r.ExitCode) + "), and no result below says why.", Identity: "verdict"})
	}
	seen := map[string]int{}
	results := make([]Result, 0, len(findings))
	for _, f := range findings {
		i, ok := index[f.Rule]
		if !ok {
			return Log{}, fmt.Errorf("sarif: finding of rule %q, which the run does not declare", f.Rule)
		}
		results = append(results, r.result(f, i, seen))
	}
	run := Run{Tool: Tool{Driver: driver}, Results: results, ColumnKind: "unicodeCodePoints",
		Invocations:       []Invocation{{ExecutionSuccessful: true, ExitCode: &r.ExitCode, Properties: map[string]any{"verdict": r.Verdict}}},
		AutomationDetails: &AutomationDetails{ID: r.Category + "/"},
		Properties:        map[string]any{"verdict": r.Verdict, "exitCode": r.ExitCode}}
	return Log{Schema: SchemaURI, Version: Version, Runs: []Run{run}}, nil
}

// needsUnknown: the verdict is UNKNOWN and no finding of level warning or above stands.
func (r Report) needsUnknown() bool {
	if r.Verdict != "UNKNOWN" {
		return false
	}
	for _, f := range r.Findings {
		if f.Suppressed == "" && (f.Level == Error || f.Level == Warning) {
			return false
		}
	}
	return true
}

// result is f as a SARIF result; seen counts the fingerprints given so far, so two findings
// with one identity get distinct ones (":2" appended to the second, as GitHub's own hashes do).
func (r Report) result(f Finding, ruleIndex int, seen map[string]int) Result {
	file, line := f.File, f.Line
	if file == "" {
		file, line = r.Anchor, 0
	}
	// A result without a line is about the whole file: its region starts at line 1, as the
	// Multitool's SARIF2017 asks (a location without a region).
	loc := PhysicalLocation{ArtifactLocation: ArtifactLocation{URI: fileURI(file)}, Region: &Region{StartLine: max(line, 1)}}
	fp := Fingerprint(f.Rule, file, f.Identity)
	seen[fp]++
	if n := seen[fp]; n > 1 {
		fp += fmt.Sprintf(":%d", n)
	}
	res := Result{RuleID: f.Rule, RuleIndex: ruleIndex, Level: f.Level, Message: Message{Text: clip(f.Message)},
		Locations: []Location{{PhysicalLocation: loc}}, PartialFingerprints: map[string]string{FingerprintKey: fp}, Properties: f.Properties}
	if f.Suppressed != "" {
		res.Suppressions = []Suppression{{Kind: "external", Justification: clip(f.Suppressed)}}
	}
	return res
}

// Fingerprint is the partialFingerprints value of a result of rule at file (the anchor for a
// finding without one) about identity: no line number goes in, so a finding keeps it when
// lines above it move. flux-chain --base compares revisions' findings by it.
func Fingerprint(rule, file, identity string) string {
	sum := sha256.Sum256([]byte(rule + "\x00" + file + "\x00" + identity))
	return hex.EncodeToString(sum[:16])
}

// maxMessage bounds one message's text (GitHub shows the start of a long one only).
const maxMessage = 4096

// clip escapes control characters (text from repositories reaches CI logs and web pages) and
// bounds the length.
func clip(s string) string {
	s = output.Sanitize(s)
	if len(s) > maxMessage {
		cut := maxMessage
		for cut > 0 && !isRuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "… (cut)"
	}
	return s
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// fileURI is a repository-relative path as a relative URI reference: slashes kept, anything
// else a URI cannot hold percent-encoded.
func fileURI(p string) string {
	p = strings.TrimPrefix(path.Clean("/"+strings.ReplaceAll(p, "\\", "/")), "/")
	if p == "" {
		p = "."
	}
	u := (&url.URL{Path: p}).EscapedPath()
	if first, _, _ := strings.Cut(u, "/"); strings.Contains(first, ":") {
		u = "./" + u // a:b/c would read as a URI with the scheme a
	}
	return u
}

// DriverVersion is a tool's version as SARIF consumers compare it (the Multitool's SARIF2005:
// it starts with a digit): "v1.2.3" is "1.2.3", and a build without a released version ("dev",
// a pseudo-version's suffix) is "0.0.0-dev".
func DriverVersion(v string) string {
	v = strings.TrimPrefix(v, "v")
	if v == "" || v[0] < '0' || v[0] > '9' {
		return "0.0.0-" + cmp.Or(v, "dev")
	}
	return v
}

// firstSentence is s up to its first ". " (or ": "), with a full stop; s when it has one only.
func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i > 0 {
		return s[:i+1]
	}
	return s
}

// ruleName is a rule id in the PascalCase SARIF tools show as a name: prune-persistent is
// PrunePersistent. A one-word id would give a name equal to it but for case, which the
// Multitool's SARIF1001 rejects: moved is MovedRule.
func ruleName(id string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(id, func(r rune) bool { return r == '-' || r == '_' || r == '/' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	if strings.EqualFold(b.String(), id) {
		b.WriteString("Rule")
	}
	return b.String()
}

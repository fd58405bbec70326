package sariftest

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

// Ingestible returns the rules of the SARIF Multitool's Sarif and Gh rule sets (5.7.0,
// `Sarif.Multitool validate --rule-kind "Sarif;Gh"`) that log breaks at level error or warning,
// as far as they apply to this project's logs; nil when it breaks none:
//
//   - GH2012: every rule has a fullDescription (and help, and a shortDescription);
//   - SARIF2005: the driver has an informationUri and a version that starts with a digit;
//   - SARIF2012 / SARIF1001: every rule has a name, unique, that is not its id in any case;
//   - SARIF2017 / GH1001: every result has a location with a region (startLine ≥ 1);
//   - GH1005 / SARIF1004: artifact URIs are relative references without a scheme;
//   - results name a declared rule by ruleId and ruleIndex, and carry partialFingerprints.
//
// The Multitool itself (npm @microsoft/sarif-multitool, a native .NET binary in
// @microsoft/sarif-multitool-linux) runs offline too; docs/sarif.md says how. Its notes
// (message ids instead of text, snippets, versionControlProvenance, ids like "CS2001") are
// advice GitHub does not require, and are not checked.
func Ingestible(log []byte) []string {
	var l struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Name, Version  string
					InformationURI string `json:"informationUri"`
					Rules          []struct {
						ID, Name                                string
						ShortDescription, FullDescription, Help *struct{ Text string }
					}
				}
			}
			Results []struct {
				RuleID              string `json:"ruleId"`
				RuleIndex           *int   `json:"ruleIndex"`
				PartialFingerprints map[string]string
				Locations           []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           *struct{ StartLine int }
					}
				}
			}
		}
	}
	if err := json.Unmarshal(log, &l); err != nil {
		return []string{err.Error()}
	}
	var out []string
	bad := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	for ri, run := range l.Runs {
		d := run.Tool.Driver
		if v := d.Version; v == "" || v[0] < '0' || v[0] > '9' {
			bad("runs[%d]: SARIF2005: tool.driver.version %q does not start with a digit", ri, v)
		}
		if u, err := url.Parse(d.InformationURI); d.InformationURI == "" || err != nil || !u.IsAbs() {
			bad("runs[%d]: SARIF2005: tool.driver.informationUri %q is not an absolute URI", ri, d.InformationURI)
		}
		names := map[string]bool{}
		for i, r := range d.Rules {
			for what, m := range map[string]*struct{ Text string }{"shortDescription": r.ShortDescription, "fullDescription": r.FullDescription, "help": r.Help} {
				if m == nil || strings.TrimSpace(m.Text) == "" {
					bad("runs[%d].rules[%d] %s: GH2012: no %s", ri, i, r.ID, what)
				}
			}
			if r.Name == "" || names[r.Name] || strings.EqualFold(r.Name, r.ID) {
				bad("runs[%d].rules[%d] %s: SARIF2012: name %q missing, repeated or equal to the id", ri, i, r.ID, r.Name)
			}
			names[r.Name] = true
		}
		for i, res := range run.Results {
			if res.RuleIndex == nil || *res.RuleIndex >= len(d.Rules) || d.Rules[*res.RuleIndex].ID != res.RuleID {
				bad("runs[%d].results[%d]: ruleId %q and ruleIndex disagree", ri, i, res.RuleID)
			}
			if len(res.PartialFingerprints) == 0 {
				bad("runs[%d].results[%d]: no partialFingerprints", ri, i)
			}
			if len(res.Locations) == 0 {
				bad("runs[%d].results[%d]: GH1001: no location", ri, i)
				continue
			}
			pl := res.Locations[0].PhysicalLocation
			if pl.Region == nil || pl.Region.StartLine < 1 {
				bad("runs[%d].results[%d]: SARIF2017: no region with a startLine", ri, i)
			}
			if u, err := url.Parse(pl.ArtifactLocation.URI); pl.ArtifactLocation.URI == "" || err != nil || u.IsAbs() || strings.HasPrefix(u.Path, "/") {
				bad("runs[%d].results[%d]: GH1005: artifact URI %q is not a relative reference", ri, i, pl.ArtifactLocation.URI)
			}
		}
	}
	return out
}

package lint

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"sigs.k8s.io/yaml"
)

// ConfigFile is the configuration file flux-chain reads at a repository's top level.
const ConfigFile = ".flux-chain.yaml"

// ConfigAPIVersion and ConfigKind identify the configuration file's schema.
const (
	ConfigAPIVersion = "fluxchain.kubeforensics.dev/v1alpha1"
	ConfigKind       = "Config"
)

// maxConfigBytes bounds the configuration file: it comes from the repository, which in CI may
// be a fork's.
const maxConfigBytes = 1 << 20

// Config is the repository's own configuration of the checks: what the repository cannot
// show (CRDs installed before Flux), rule severities and suppressions with their reasons.
// Its schema is documented in docs/flux-chain.md; unknown fields are rejected.
type Config struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// CRDs are the CustomResourceDefinitions present before Flux applies anything.
	CRDs CRDConfig `json:"crds"`
	// Rules set a rule's severity, by rule id.
	Rules map[string]RuleConfig `json:"rules"`
	// Suppressions silence findings, each with the reason it is acceptable.
	Suppressions []Suppression `json:"suppressions"`
}

// CRDConfig declares CRDs installed outside Flux (a bootstrap step, the cluster's
// distribution): by API group, by group/Kind, or as the CRD manifests under paths (files or
// directories relative to the repository's top level, read as YAML, never executed).
type CRDConfig struct {
	Groups []string `json:"groups"`
	Kinds  []string `json:"kinds"`
	Paths  []string `json:"paths"`
}

// RuleConfig configures one rule.
type RuleConfig struct {
	// Severity replaces the rule's severity: error, warning or info.
	Severity Severity `json:"severity"`
}

// Suppression silences the findings of one rule that match every selector given (all of
// the rule's findings when none is given). Reason is required: it is shown with each finding
// it silences.
type Suppression struct {
	Rule string `json:"rule"`
	// Kustomization is namespace/name; Object is "Kind namespace/name" as findings name it;
	// File is a path relative to the top level, where * and ? match within a segment.
	Kustomization string `json:"kustomization,omitempty"`
	Object        string `json:"object,omitempty"`
	File          string `json:"file,omitempty"`
	Reason        string `json:"reason"`
}

// unknownField finds the field name in the strict decoder's error.
var unknownField = regexp.MustCompile(`unknown field "([^"]+)"`)

// ReadConfig reads and checks the configuration file at path. Every error names the file and,
// for a schema error, the field.
func ReadConfig(path string) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > maxConfigBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, maxConfigBytes)
	}
	var c Config
	if err := yaml.UnmarshalStrict(data, &c); err != nil {
		if m := unknownField.FindStringSubmatch(err.Error()); m != nil {
			return nil, fmt.Errorf("%s: unknown field %q", path, m[1])
		}
		return nil, fmt.Errorf("%s: %s", path, oneLine(err.Error()))
	}
	if err := c.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &c, nil
}

// validate checks what the schema alone cannot: the identity, known rule ids, severities,
// group/Kind forms and that every suppression has a reason.
func (c *Config) validate() error {
	if c.APIVersion != ConfigAPIVersion || c.Kind != ConfigKind {
		return fmt.Errorf("field \"apiVersion\"/\"kind\": want %s %s, got %q %q", ConfigAPIVersion, ConfigKind, c.APIVersion, c.Kind)
	}
	for _, k := range c.CRDs.Kinds {
		if g, kind, ok := strings.Cut(k, "/"); !ok || g == "" || kind == "" {
			return fmt.Errorf("field \"crds.kinds\": %q is not GROUP/Kind", k)
		}
	}
	for id, rc := range c.Rules {
		if !KnownRule(id) {
			return fmt.Errorf("field \"rules.%s\": unknown rule", id)
		}
		if _, err := ParseSeverity(string(rc.Severity)); err != nil {
			return fmt.Errorf("field \"rules.%s.severity\": %w", id, err)
		}
	}
	for i, s := range c.Suppressions {
		switch {
		case !KnownRule(s.Rule):
			return fmt.Errorf("field \"suppressions[%d].rule\": unknown rule %q", i, s.Rule)
		case strings.TrimSpace(s.Reason) == "":
			return fmt.Errorf("field \"suppressions[%d].reason\": a suppression needs a reason", i)
		}
	}
	return nil
}

// KnownRule reports whether id names a rule.
func KnownRule(id string) bool {
	for _, r := range Rules() {
		if r.ID == id {
			return true
		}
	}
	return false
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// errNotCRD is returned for a path that holds no CustomResourceDefinition.
var errNotCRD = errors.New("holds no CustomResourceDefinition")

package fluxchain

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/lint"
)

// configFlags are what --repo is told about what the repository cannot show: the
// configuration file, CRDs installed outside Flux and rule severities.
type configFlags struct {
	Config   string
	CRDs     []string
	CRDsFrom []string
	Severity []string

	// path is the configuration file read ("" for none); settings what it and the flags say.
	path     string
	settings lint.Settings
}

func (c *configFlags) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&c.Config, "config", "", "With --repo: the configuration file (default: "+lint.ConfigFile+" at the repository's top level, when present).")
	f.StringSliceVar(&c.CRDs, "crds", nil, "With --repo: CRDs installed outside Flux, before it starts (an API group such as monitoring.coreos.com, or GROUP/Kind); repeatable.")
	f.StringSliceVar(&c.CRDsFrom, "crds-from", nil, "With --repo: a file or directory of CRD manifests installed outside Flux (e.g. a bootstrap directory); read as YAML, never executed; repeatable.")
	f.StringSliceVar(&c.Severity, "severity", nil, "With --repo: set a rule's severity, RULE=error|warning|info; repeatable, wins over the configuration file.")
}

// used reports whether any of the flags was given.
func (c *configFlags) used() bool {
	return c.Config != "" || len(c.CRDs) > 0 || len(c.CRDsFrom) > 0 || len(c.Severity) > 0
}

// complete reads the configuration file and the flags into settings; every error is bad input.
func (c *configFlags) complete(root string) error {
	cfg, err := c.read(root)
	if err != nil {
		return exitcode.UsageErrorf("%v", err)
	}
	s := lint.Settings{CRDs: &lint.CRDSet{}, Severity: map[string]lint.Severity{}, Suppressions: cfg.Suppressions, SuppressionsFrom: c.path}
	for id, rc := range cfg.Rules {
		s.Severity[id] = rc.Severity
	}
	for _, d := range append(append([]string(nil), cfg.CRDs.Groups...), cfg.CRDs.Kinds...) {
		s.CRDs.Add(d)
	}
	for _, p := range cfg.CRDs.Paths {
		full, err := insideRepo(root, p)
		if err == nil {
			_, err = s.CRDs.AddManifests(full)
		}
		if err != nil {
			return exitcode.UsageErrorf("%s: field \"crds.paths\": %v", c.path, err)
		}
	}
	for _, d := range c.CRDs {
		if g, k, ok := strings.Cut(d, "/"); d == "" || (ok && (g == "" || k == "")) {
			return exitcode.UsageErrorf("--crds %q: want GROUP or GROUP/Kind", d)
		}
		s.CRDs.Add(d)
	}
	for _, p := range c.CRDsFrom {
		if _, err := s.CRDs.AddManifests(p); err != nil {
			return exitcode.UsageErrorf("--crds-from: %v", err)
		}
	}
	for _, kv := range c.Severity {
		id, level, _ := strings.Cut(kv, "=")
		sev, err := lint.ParseSeverity(level)
		if !lint.KnownRule(id) || err != nil {
			return exitcode.UsageErrorf("--severity %q: want RULE=error|warning|info with a known rule", kv)
		}
		s.Severity[id] = sev
	}
	c.settings = s
	return nil
}

// read reads --config, else the repository's configuration file when it has one.
func (c *configFlags) read(root string) (*lint.Config, error) {
	c.path = c.Config
	if c.path == "" {
		c.path = filepath.Join(root, lint.ConfigFile)
		if _, err := os.Stat(c.path); errors.Is(err, os.ErrNotExist) {
			c.path = ""
			return &lint.Config{}, nil
		}
	}
	return lint.ReadConfig(c.path)
}

// insideRepo resolves a path the configuration file names, relative to the top level, and
// refuses one that leaves the repository: the file may come from a fork.
func insideRepo(root, p string) (string, error) {
	if filepath.IsAbs(p) {
		return "", errors.New(p + ": must be relative to the repository's top level")
	}
	full := filepath.Join(root, filepath.FromSlash(p))
	if rel, err := filepath.Rel(root, full); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", errors.New(p + ": leaves the repository")
	}
	return full, nil
}

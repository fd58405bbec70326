package lint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Declared is what the command line adds to the configuration file: CRDs installed outside
// Flux (GROUP or GROUP/Kind; CRD manifests to read) and rule severities (RULE=LEVEL).
type Declared struct {
	CRDs, CRDsFrom, Severity []string
}

// NewSettings combines the configuration file (cfg, read from cfgPath; nil for none) with
// the command line into Settings. Paths cfg names are relative to root, the repository's top
// level, and may not leave it: the file may come from a fork. Errors name the file and field or
// the flag.
func NewSettings(root string, cfg *Config, cfgPath string, d Declared) (Settings, error) {
	if cfg == nil {
		cfg = &Config{}
	}
	s := Settings{CRDs: &CRDSet{}, Severity: map[string]Severity{}, Suppressions: cfg.Suppressions, SuppressionsFrom: cfgPath}
	for id, rc := range cfg.Rules {
		s.Severity[id] = rc.Severity
	}
	for _, g := range append(append([]string(nil), cfg.CRDs.Groups...), cfg.CRDs.Kinds...) {
		s.CRDs.Add(g)
	}
	for _, p := range cfg.CRDs.Paths {
		full, err := insideRepo(root, p)
		if err == nil {
			_, err = s.CRDs.AddManifests(full)
		}
		if err != nil {
			return Settings{}, fmt.Errorf("%s: field \"crds.paths\": %w", cfgPath, err)
		}
	}
	for _, c := range d.CRDs {
		if st, err := os.Stat(c); c != "" && err == nil && (st.IsDir() || st.Mode().IsRegular()) {
			// A file or directory of CRD manifests, as --crds-from reads.
			if _, err := s.CRDs.AddManifests(c); err != nil {
				return Settings{}, fmt.Errorf("--crds: %w", err)
			}
			continue
		}
		if g, k, ok := strings.Cut(c, "/"); c == "" || (ok && (g == "" || k == "")) {
			return Settings{}, fmt.Errorf("--crds %q: want GROUP or GROUP/Kind", c)
		}
		s.CRDs.Add(c)
	}
	for _, p := range d.CRDsFrom {
		if _, err := s.CRDs.AddManifests(p); err != nil {
			return Settings{}, fmt.Errorf("--crds-from: %w", err)
		}
	}
	for _, kv := range d.Severity {
		id, level, _ := strings.Cut(kv, "=")
		sev, err := ParseSeverity(level)
		if !KnownRule(id) || err != nil {
			return Settings{}, fmt.Errorf("--severity %q: want RULE=error|warning|info with a known rule", kv)
		}
		s.Severity[id] = sev
	}
	return s, nil
}

// insideRepo resolves p relative to root and refuses a path that leaves it.
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

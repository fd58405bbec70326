package fluxchain

import (
	"github.com/spf13/cobra"

	"github.com/kubeforensics/suite/internal/lint"
)

// configFlags are what --repo is told about what the repository cannot show: the
// configuration file, CRDs installed outside Flux and rule severities (read by
// chain.OpenRepoRequest).
type configFlags struct {
	Config string
	lint.Declared
}

func (c *configFlags) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&c.Config, "config", "", "With --repo: the configuration file (default: "+lint.ConfigFile+" at the repository's top level, when present).")
	f.StringSliceVar(&c.CRDs, "crds", nil, "With --repo: CRDs installed outside Flux, before it starts (an API group such as monitoring.coreos.com, GROUP/Kind, or a file or directory of CRD manifests as --crds-from reads); repeatable.")
	f.StringSliceVar(&c.CRDsFrom, "crds-from", nil, "With --repo: a file or directory of CRD manifests installed outside Flux (e.g. a bootstrap directory); read as YAML, never executed; repeatable.")
	f.StringSliceVar(&c.Severity, "severity", nil, "With --repo: set a rule's severity, RULE=error|warning|info; repeatable, wins over the configuration file.")
}

// used reports whether any of the flags was given.
func (c *configFlags) used() bool {
	return c.Config != "" || len(c.CRDs) > 0 || len(c.CRDsFrom) > 0 || len(c.Severity) > 0
}

package cli

import (
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Form is the plugin system a command is invoked through: kubectl runs kubectl-<name>, the
// Flux CLI (2.9 and later) runs flux-<name> from its plugin directory. The commands behave the
// same either way; only their help names the other front end.
type Form int

const (
	// Kubectl is `kubectl flux-chain`, the form the commands are written in.
	Kubectl Form = iota
	// Flux is `flux chain`, the same command installed with `flux plugin install`.
	Flux
)

// Plugin names one plugin in both plugin systems.
type Plugin struct {
	// Kubectl is the name after `kubectl`: "flux-chain".
	Kubectl string
	// Flux is the name after `flux`: "chain" (`flux flux-chain` would stutter).
	Flux string
}

// Plugins are the suite's plugins, in the order the README lists them.
var Plugins = []Plugin{
	{Kubectl: "why-terminating", Flux: "why-terminating"},
	{Kubectl: "flux-chain", Flux: "chain"},
	{Kubectl: "safe-retire", Flux: "safe-retire"},
}

// KubectlBinary is the executable kubectl finds: kubectl-flux_chain (kubectl maps _ to -).
func (p Plugin) KubectlBinary() string {
	return "kubectl-" + strings.ReplaceAll(p.Kubectl, "-", "_")
}

// FluxBinary is the executable the Flux CLI finds: flux-chain (flux keeps the - as it is).
func (p Plugin) FluxBinary() string { return "flux-" + p.Flux }

// FormOf tells the form from the name the executable was started as (argv[0]): flux-<name>
// is the Flux form, anything else the kubectl form. One binary serves both, so the release
// archives krew installs also serve `flux plugin install`, which installs the binary as
// flux-<name>.
func FormOf(argv0 string) Form {
	// Either separator: the Windows path of flux-chain.exe, tested on any platform.
	base := argv0[strings.LastIndexAny(argv0, `/\`)+1:]
	if ext := filepath.Ext(base); strings.EqualFold(ext, ".exe") {
		base = strings.TrimSuffix(base, ext)
	}
	if strings.HasPrefix(base, "flux-") {
		return Flux
	}
	return Kubectl
}

// fluxNames rewrites the suite's kubectl invocations into their Flux form. Only the three
// plugin names change: a printed remediation such as `kubectl delete pod` still runs kubectl.
var fluxNames = func() *strings.Replacer {
	var pairs []string
	for _, p := range Plugins {
		pairs = append(pairs, "kubectl "+p.Kubectl, "flux "+p.Flux)
	}
	return strings.NewReplacer(pairs...)
}()

// As adapts cmd, built in the kubectl form, to form f and returns it: for Flux, the display
// name (usage line, --version) and the Use, Short, Long, Example and flag help texts of cmd
// and its subcommands say `flux chain` where they said `kubectl flux-chain`.
func As(cmd *cobra.Command, f Form) *cobra.Command {
	if f != Flux {
		return cmd
	}
	rewrite(cmd, fluxNames.Replace)
	return cmd
}

func rewrite(cmd *cobra.Command, r func(string) string) {
	cmd.Use, cmd.Short, cmd.Long, cmd.Example = r(cmd.Use), r(cmd.Short), r(cmd.Long), r(cmd.Example)
	if name, ok := cmd.Annotations[cobra.CommandDisplayNameAnnotation]; ok {
		cmd.Annotations[cobra.CommandDisplayNameAnnotation] = r(name)
	}
	for _, fs := range []*pflag.FlagSet{cmd.Flags(), cmd.PersistentFlags()} {
		fs.VisitAll(func(fl *pflag.Flag) { fl.Usage = r(fl.Usage) })
	}
	for _, c := range cmd.Commands() {
		rewrite(c, r)
	}
}

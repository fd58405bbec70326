package cluster

import (
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/cli-runtime/pkg/genericclioptions"
)

// Every command a plugin prints is built here, so that all of them reach the cluster the plugin
// read (the same kubeconfig file, context, cluster, user, server and impersonation) and so that
// no word of them, an object name from a repository or from the cluster above all, can run
// anything else when pasted into a shell.

// Command renders a kubectl command against t: `kubectl <connection flags> args...`, every word
// quoted for a POSIX shell (Quote).
func (t Target) Command(args ...string) string {
	return Quote(append(append([]string{"kubectl"}, t.connection()...), args...)...)
}

// Plugin renders a command of one of the suite's plugins against t: `kubectl NAME <connection
// flags> args...`. kubectl only finds a plugin named before any flag, so the flags follow it.
func (t Target) Plugin(name string, args ...string) string {
	return Quote(append(append([]string{"kubectl", name}, t.connection()...), args...)...)
}

// Flag is the connection flags of printed commands as one quoted string, e.g.
// `--kubeconfig=/home/me/prod.yaml --context=prod`. Prefer Command and Plugin, which quote the
// rest of the command too.
func (t Target) Flag() string {
	return Quote(t.connection()...)
}

// connection is the flags that pin a printed command to t: the ones the plugin was given
// (Flags), else --context, else --server for a configuration without one (in-cluster).
func (t Target) connection() []string {
	switch {
	case len(t.Flags) > 0:
		return t.Flags
	case t.Context != "":
		return []string{"--context=" + t.Context}
	}
	return []string{"--server=" + t.Server}
}

// Placeholder is the context printed commands name when a run reads no cluster (--offline) and
// no --context was given: the operator fills it in.
const Placeholder = "CONTEXT"

// RemotePlaceholder is the kubeconfig printed commands name for an object on another cluster
// than the one its Flux Kustomization lives on (spec.kubeConfig): the operator fills it in with
// a kubeconfig of that cluster.
const RemotePlaceholder = "REMOTE_KUBECONFIG"

// Remote is the target of commands on an object of such a cluster: --kubeconfig=REMOTE_KUBECONFIG
// alone, none of the run's own connection flags, which reach another cluster.
func Remote() Target {
	return Target{Flags: []string{"--kubeconfig=" + RemotePlaceholder}}
}

// Offline is the target of a run that reads no cluster: printed commands carry the connection
// flags given, and --context=CONTEXT when none names a context.
func Offline(flags *genericclioptions.ConfigFlags) Target {
	t := Target{Context: value(flags.Context)}
	if t.Context == "" {
		t.Context = Placeholder
	}
	t.Flags, t.Secrets = connectionFlags(flags, t.Context, "")
	return t
}

// connectionFlags reproduces, as kubectl flags, the connection the standard flags selected:
// context is the context the plugin used (given or current), server the URL to pin when there
// is no context. Credentials given on the command line are never repeated: their flag names are
// returned as secrets, for the caller to say that printed commands need them.
func connectionFlags(f *genericclioptions.ConfigFlags, context, server string) (flags, secrets []string) {
	add := func(name, v string) {
		if v != "" {
			flags = append(flags, "--"+name+"="+v)
		}
	}
	add("kubeconfig", absPath(value(f.KubeConfig)))
	add("context", context)
	add("cluster", value(f.ClusterName))
	add("user", value(f.AuthInfoName))
	if s := value(f.APIServer); s != "" {
		add("server", redactURL(s))
		if redactURL(s) != s {
			secrets = append(secrets, "the user information of --server")
		}
	} else if context == "" {
		add("server", server)
	}
	add("tls-server-name", value(f.TLSServerName))
	if f.Insecure != nil && *f.Insecure {
		add("insecure-skip-tls-verify", "true")
	}
	add("certificate-authority", absPath(value(f.CAFile)))
	add("client-certificate", absPath(value(f.CertFile)))
	add("client-key", absPath(value(f.KeyFile)))
	add("as", value(f.Impersonate))
	add("as-uid", value(f.ImpersonateUID))
	if f.ImpersonateGroup != nil {
		for _, g := range *f.ImpersonateGroup {
			add("as-group", g)
		}
	}
	if f.ImpersonateUserExtra != nil {
		for _, e := range *f.ImpersonateUserExtra {
			add("as-user-extra", e)
		}
	}
	for name, v := range map[string]*string{"--token": f.BearerToken, "--username": f.Username, "--password": f.Password} {
		if value(v) != "" {
			secrets = append(secrets, name)
		}
	}
	slices.Sort(secrets)
	return flags, secrets
}

func value(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// absPath makes a file flag independent of the directory the command is pasted in.
func absPath(p string) string {
	if p == "" {
		return ""
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// Quote joins words into one POSIX shell command line: a word of only letters, digits and
// `@%+=:,./-_` is written as is, any other in single quotes (a single quote inside as '\”),
// the empty word as ”. A shell splits the result back into exactly these words, whatever
// they hold. Pipelines are Quote of each command joined with " | ".
func Quote(words ...string) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = quoteWord(w)
	}
	return strings.Join(out, " ")
}

func quoteWord(w string) string {
	if w == "" {
		return "''"
	}
	for _, c := range []byte(w) {
		if !safeByte(c) {
			return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return w
}

func safeByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("@%+=:,./-_", c) >= 0
}

package toolargs

import (
	"github.com/kubeforensics/suite/internal/allowlist"
	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/saferetire"
)

// SafeRetirePlan are the arguments of safe_retire_plan, as `safe-retire --dry-run` takes them.
type SafeRetirePlan struct {
	Repo            string   `json:"repo" jsonschema:"A directory in the repository's git working tree (absolute, or relative to the server's first repository root)."`
	Base            string   `json:"base,omitempty" jsonschema:"The base revision (default: the merge-base with the upstream default branch, else HEAD~1)."`
	Candidate       string   `json:"candidate,omitempty" jsonschema:"The candidate revision (default: the working tree, uncommitted changes included)."`
	Path            string   `json:"path,omitempty" jsonschema:"The entry path relative to the source root (offline: whose build declares the Kustomizations; live: the root Kustomization's path). Default: detected."`
	SourceRoot      string   `json:"sourceRoot,omitempty" jsonschema:"The directory spec.paths are relative to (default: detected)."`
	Offline         bool     `json:"offline,omitempty" jsonschema:"Read no cluster: the Flux Kustomizations come from the repository."`
	Namespace       string   `json:"namespace,omitempty" jsonschema:"Live: only the Kustomizations of this namespace (default: all)."`
	PersistentKinds []string `json:"persistentKinds,omitempty" jsonschema:"More kinds that hold persistent state, as Kind or Kind.group."`
	Context         string   `json:"context,omitempty" jsonschema:"The kubeconfig context to read (or, offline, to name in printed commands); empty for the server's default. Only contexts on the server's allow-list are accepted."`
}

// ToRequest is the dry run the call asks for, of the repository, which roots must hold, on
// its context, which allowed must allow: read live (unless offline) with clients of its own,
// and named in printed commands. No cache is read or written and no network is used; the
// values are checked by saferetire.Plan, as the command's are.
func (in SafeRetirePlan) ToRequest(allowed *allowlist.Contexts, roots allowlist.Roots) (saferetire.Request, error) {
	name, err := allowed.Resolve(in.Context)
	if err != nil {
		return saferetire.Request{}, err
	}
	dir, err := roots.Check(in.Repo)
	if err != nil {
		return saferetire.Request{}, err
	}
	flags := allowed.Flags(name, in.Namespace)
	var clients *cluster.Clients
	if !in.Offline {
		if clients, err = cluster.Connect(flags); err != nil {
			return saferetire.Request{}, err
		}
	}
	return saferetire.Request{Repo: dir, Base: in.Base, Candidate: in.Candidate, Path: in.Path, SourceRoot: in.SourceRoot,
		PersistentKinds: in.PersistentKinds, DryRun: true, Runtime: saferetire.Runtime{Clients: clients, Target: cluster.Offline(flags)}}, nil
}

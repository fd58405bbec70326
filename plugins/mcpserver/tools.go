package mcpserver

import (
	"context"
	"io"
	"reflect"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/internal/saferetire"
	"github.com/kubeforensics/suite/plugins/fluxchain"
	"github.com/kubeforensics/suite/plugins/whyterminating"
)

// fluxNamespace is where flux_chain looks unless told otherwise, as `kubectl flux-chain` does.
const fluxNamespace = "flux-system"

// WhyTerminatingInput are the arguments of why_terminating, as `kubectl why-terminating` takes them.
type WhyTerminatingInput struct {
	Object        string `json:"object,omitempty" jsonschema:"What to explain, as kubectl names it: 'TYPE NAME' (pvc headlamp), 'TYPE/NAME' (persistentvolumeclaims/headlamp), a Flux inventory id (headlamp_headlamp__PersistentVolumeClaim), or a TYPE alone for every Terminating object of that type. Empty: every Terminating object in the namespace (and the namespace itself), or in the cluster with allNamespaces."`
	Namespace     string `json:"namespace,omitempty" jsonschema:"The namespace (default: the context's)."`
	AllNamespaces bool   `json:"allNamespaces,omitempty" jsonschema:"Every namespace, and cluster-scoped objects (kubectl -A)."`
	Context       string `json:"context,omitempty" jsonschema:"The kubeconfig context to read; empty for the server's default. Only contexts on the server's allow-list are accepted."`
}

// FluxChainInput are the arguments of flux_chain.
type FluxChainInput struct {
	Name          string `json:"name,omitempty" jsonschema:"One Kustomization to focus on, with what it depends on and what waits on it; empty for the whole chain."`
	Namespace     string `json:"namespace,omitempty" jsonschema:"The namespace of the Kustomizations (default flux-system)."`
	AllNamespaces bool   `json:"allNamespaces,omitempty" jsonschema:"Kustomizations in every namespace."`
	Context       string `json:"context,omitempty" jsonschema:"The kubeconfig context to read; empty for the server's default. Only contexts on the server's allow-list are accepted."`
}

func (s *server) tools() []func(*mcp.Server) error {
	allowed := " Contexts: " + s.contexts.describe() + "."
	return []func(*mcp.Server) error{
		func(srv *mcp.Server) error {
			return addTool(srv, &mcp.Tool{
				Name: "why_terminating",
				Description: "Explain what holds a Kubernetes object (or every Terminating object in a namespace or the cluster) in Terminating: " +
					"each finalizer, who removes it, the concrete objects that block it with their owners and GitOps owner, and the safe fix with what it costs. " +
					"verdict STUCK (exit 1), CLEAR (0) or UNKNOWN (2: a read failed, nothing may be concluded)." + allowed,
				Annotations: readOnly("Why is it Terminating?", true),
			}, reflect.TypeFor[whyterminating.Result](), s.whyTerminating)
		},
		func(srv *mcp.Server) error {
			return addTool(srv, &mcp.Tool{
				Name: "flux_chain",
				Description: "Show a cluster's Flux Kustomizations in dependsOn order: which fail for their own reason (root causes), which only wait on them, " +
					"what each failure freezes downstream, and the object a failing health check waits on (explained when it is stuck Terminating). " +
					"verdict FAILING (exit 1), HEALTHY (0) or UNKNOWN (2)." + allowed,
				Annotations: readOnly("Flux Kustomization chain", true),
			}, reflect.TypeFor[fluxchain.Result](), s.fluxChain)
		},
		func(srv *mcp.Server) error {
			return addTool(srv, &mcp.Tool{
				Name: "flux_chain_lint",
				Description: "Lint a Flux GitOps repository (a local git working tree) offline: build its entry path and every Kustomization's path as kustomize-controller would, " +
					"draw the chain and report rule findings with the file and line to fix. No cluster and no network is used; a tier that needs remote bases is not built (UNKNOWN). " +
					"verdict FINDINGS (exit 1), CLEAN (0) or UNKNOWN (2). Repositories: under " + s.roots.String() + ".",
				Annotations: readOnly("Lint a Flux repository", false),
			}, reflect.TypeFor[fluxchain.RepoResult](), s.fluxChainLint)
		},
		func(srv *mcp.Server) error {
			return addTool(srv, &mcp.Tool{
				Name: "safe_retire_plan",
				Description: "Dry run of safe-retire: compare what each Flux Kustomization builds to at a base and a candidate revision of a local repository " +
					"(and, unless offline, what the cluster's inventories hold), decide for every dropped object whether Flux prunes it, and refuse unprotected persistent state " +
					"with a staged plan (protect, drain, remove the manifest, delete by hand). Nothing is carried out. verdict UNSAFE (exit 1), SAFE (0) or UNKNOWN (2). " +
					"Repositories: under " + s.roots.String() + "." + allowed,
				Annotations: readOnly("Plan a safe retirement (dry run)", true),
			}, reflect.TypeFor[saferetire.Result](), s.safeRetirePlan)
		},
	}
}

// whyTerminating is `kubectl why-terminating` for one call.
func (s *server) whyTerminating(ctx context.Context, _ *mcp.CallToolRequest, in WhyTerminatingInput) (*mcp.CallToolResult, any, error) {
	return s.call(ctx, func(ctx context.Context) (report, error) {
		args := strings.Fields(in.Object)
		req := whyterminating.Request{AllNamespaces: in.AllNamespaces, Sweep: len(args) == 0}
		switch {
		case len(args) > 2:
			return report{}, exitcode.UsageErrorf("object %q: give TYPE, TYPE NAME, TYPE/NAME or an inventory id", in.Object)
		case len(args) > 0:
			arg, err := kinds.ParseObjectArgs(args)
			if err != nil {
				return report{}, err
			}
			req.Arg = arg
		}
		if in.AllNamespaces && req.Arg.Name != "" {
			return report{}, exitcode.UsageErrorf("allNamespaces explains every Terminating object; give no object name with it")
		}
		if req.Arg.FromInventory && in.Namespace != "" && req.Arg.Namespace != "" && in.Namespace != req.Arg.Namespace {
			return report{}, exitcode.UsageErrorf("inventory id names namespace %q but namespace is %q", req.Arg.Namespace, in.Namespace)
		}
		c, err := s.contexts.connect(in.Context, in.Namespace)
		if err != nil {
			return report{}, err
		}
		s.log("why_terminating", c.Target.String())
		req.Namespace = c.Namespace
		res, err := whyterminating.Compute(ctx, c, req)
		if err != nil {
			return report{}, err
		}
		return report{value: res, verdict: res.Verdict, exitCode: res.ExitCode,
			text: func(w io.Writer, p output.Palette) error { return whyterminating.PrintText(w, res, p) }}, nil
	})
}

// fluxChain is `kubectl flux-chain` (live) for one call.
func (s *server) fluxChain(ctx context.Context, _ *mcp.CallToolRequest, in FluxChainInput) (*mcp.CallToolResult, any, error) {
	return s.call(ctx, func(ctx context.Context) (report, error) {
		if in.Name != "" && in.AllNamespaces {
			return report{}, exitcode.UsageErrorf("a Kustomization name needs its namespace, not allNamespaces")
		}
		ns := in.Namespace
		switch {
		case in.AllNamespaces:
			ns = ""
		case ns == "":
			ns = fluxNamespace
		}
		c, err := s.contexts.connect(in.Context, "")
		if err != nil {
			return report{}, err
		}
		s.log("flux_chain", c.Target.String())
		res, err := fluxchain.Compute(ctx, c, ns, in.Name, nil)
		if err != nil {
			return report{}, err
		}
		return report{value: res, verdict: res.Verdict, exitCode: res.ExitCode,
			text: func(w io.Writer, p output.Palette) error { return fluxchain.PrintText(w, res, p) }}, nil
	})
}

package fluxchain_test

import (
	"context"
	"encoding/json"
	"regexp"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/plugins/fluxchain"
)

// stamp is the report's time, the one field two runs on the same input do not share.
var stamp = regexp.MustCompile(`"timestamp":"[^"]*"`)

// sameJSON fails t when a and b, marshalled, differ in more than their timestamp.
func sameJSON(t *testing.T, what string, cmdRes, entryRes any) {
	t.Helper()
	var s [2]string
	for i, v := range []any{cmdRes, entryRes} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		s[i] = stamp.ReplaceAllString(string(b), `"timestamp":"-"`)
	}
	if diff := cmp.Diff(s[0], s[1]); diff != "" {
		t.Errorf("%s: the entry's Result differs from the command's (-command +entry):\n%s", what, diff)
	}
}

// The MCP server's --repo entry (Lint, which plans a RepoRequest) and the command give the
// same RepoResult for the same repository and flags: a clean one, one with findings and
// a stricter --fail-on. No cluster is involved.
func TestLintEntryMatchesCommand(t *testing.T) {
	t.Setenv("GITHUB_ACTIONS", "")
	for _, tc := range []struct {
		name, repo, failOn string
	}{
		{"clean", "clean", ""},
		{"seeded", "seeded", ""},
		{"remote-warnings-fail", "remote", "warning"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyRepo(t, tc.repo)
			args := []string{"--repo", dir, "-o", "json"}
			if tc.failOn != "" {
				args = append(args, "--fail-on", tc.failOn)
			}
			out, errOut, code := runRepo(t, args...)
			var cmdRes fluxchain.RepoResult
			if err := json.Unmarshal([]byte(out), &cmdRes); err != nil {
				t.Fatalf("exit %d, json: %v\n%s\n%s", code, err, out, errOut)
			}
			res, err := fluxchain.Lint(context.Background(), fluxchain.LintRequest{Repo: dir, FailOn: tc.failOn})
			if err != nil {
				t.Fatal(err)
			}
			if res.ExitCode != code {
				t.Errorf("entry exit code %d, command %d", res.ExitCode, code)
			}
			sameJSON(t, tc.name, &cmdRes, res)
		})
	}
}

// The MCP server's live entry (Compute, which calls Plan) and the command give the same Result
// for the same Request on the control plane: a root cause with what waits on it, the whole
// chain and one Kustomization focused.
func TestEntryMatchesCommand(t *testing.T) {
	needEnv(t)
	const ns = "fc-entry"
	f := newFixture(t, ns)
	f.gitRepo("fleet", rev1)
	f.ks(kspec{name: "infra", applied: rev1, ready: cond("Ready", "False", "BuildFailed", "kustomize build failed: accumulating resources")})
	f.ks(waitingKS(ns, "apps", rev1, "infra"))
	flags := genericclioptions.NewConfigFlags(true)
	flags.KubeConfig, flags.Context = &env.Kubeconfig, &env.Context
	c, err := cluster.Connect(flags)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		req  fluxchain.Request
	}{
		{"namespace", []string{"-n", ns}, fluxchain.Request{Namespace: ns}},
		{"focused", []string{"apps", "-n", ns}, fluxchain.Request{Namespace: ns, Name: "apps"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmdRes, code := decode(t, tc.args...)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			res, err := fluxchain.Compute(ctx, c, tc.req.Namespace, tc.req.Name, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.ExitCode != code {
				t.Errorf("entry exit code %d, command %d", res.ExitCode, code)
			}
			sameJSON(t, tc.name, &cmdRes, res)
		})
	}
}

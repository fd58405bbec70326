package mcpserver_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
	"github.com/kubeforensics/suite/plugins/saferetire"
)

// safe_retire_plan and `kubectl safe-retire --dry-run` are one Plan: for the same request the
// tool's structured content and the command's json output are the same report, but for the
// time each was written. The command reads no cache here, as the tool reads none. Live, a SAFE
// gate's plan and digest are the command's too.
func TestSafeRetirePlanSameAsCommand(t *testing.T) {
	root := t.TempDir()
	files := incident.RepoFiles()
	r := gittest.In(t, root, files)
	base := r.Git("rev-parse", "HEAD")
	// A change that removes nothing (SAFE), committed; the working tree drops the claim too.
	safe := r.Commit("a comment", map[string]string{"k8s/apps/kustomization.yaml": files["k8s/apps/kustomization.yaml"] + "# reviewed\n"})
	r.Write(incident.ClaimRemoval())
	cases := []struct {
		name string
		live bool
		args map[string]any
	}{
		{"offline, detected layout", false, map[string]any{"offline": true}},
		{"offline, entry path", false, map[string]any{"offline": true, "path": "clusters/prod"}},
		{"offline, persistent kind", false, map[string]any{"offline": true, "persistentKinds": []any{"ConfigMap"}}},
		{"offline, safe", false, map[string]any{"offline": true, "candidate": safe}},
		{"live, unsafe", true, map[string]any{"path": "clusters/prod"}},
		{"live, one namespace", true, map[string]any{"path": "clusters/prod", "namespace": incident.FluxNS}},
		{"live, safe: the plan and its digest", true, map[string]any{"path": "clusters/prod", "candidate": safe}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			kubeconfig := emptyKubeconfig(t)
			flags := []string{"--dry-run", "-o", "json", "--repo", r.Dir, "--base", base}
			if tc.live {
				needEnv(t)
				kubeconfig = env.Kubeconfig
				flags = append(flags, "--context", env.Context)
			}
			tc.args["repo"], tc.args["base"] = r.Dir, base
			flags = append(flags, "--kubeconfig", kubeconfig)
			for k, v := range tc.args {
				flags = append(flags, commandFlags(t, k, v)...)
			}
			tool := call(t, connect(t, config(kubeconfig, root)), "safe_retire_plan", tc.args)
			if tool.IsError {
				t.Fatalf("tool error: %s", text(tool))
			}
			b, err := json.Marshal(tool.StructuredContent)
			if err != nil {
				t.Fatal(err)
			}
			got, want := reportOf(t, b), reportOf(t, runCommand(t, flags))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("safe_retire_plan %v differs from safe-retire %v (-command +tool):\n%s", tc.args, flags, diff)
			}
			if tc.name == "live, safe: the plan and its digest" && (got["verdict"] != "SAFE" || got["confirm"] == nil) {
				t.Errorf("verdict %v, confirm %v: want a SAFE live gate with its plan to confirm", got["verdict"], got["confirm"])
			}
		})
	}
}

// commandFlags are the command's flags for the tool argument k=v.
func commandFlags(t *testing.T, k string, v any) []string {
	switch k {
	case "repo", "base":
		return nil // given already
	case "offline":
		return []string{"--offline"}
	case "persistentKinds":
		var out []string
		for _, kind := range v.([]any) {
			out = append(out, "--persistent-kind", fmt.Sprint(kind))
		}
		return out
	}
	flag, ok := map[string]string{"candidate": "--candidate", "path": "--path", "sourceRoot": "--source-root", "namespace": "--namespace"}[k]
	if !ok {
		t.Fatalf("no flag for argument %s", k)
	}
	return []string{flag, fmt.Sprint(v)}
}

// runCommand runs `kubectl safe-retire` with args, without an environment (so no cache), and
// returns its json output; a verdict's exit code is not an error.
func runCommand(t *testing.T, args []string) []byte {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := saferetire.NewCmdSafeRetire(genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errOut}, func(string) string { return "" })
	cmd.SetArgs(args)
	cmd.SilenceErrors = true
	var coded *exitcode.Error
	if err := cmd.Execute(); err != nil && (!errors.As(err, &coded) || coded.Code == exitcode.Usage) {
		t.Fatalf("safe-retire %v: %v\n%s", args, err, errOut.String())
	}
	return out.Bytes()
}

// age is how old a live object was when it was read: it moves on between two runs.
var age = regexp.MustCompile(`"age [^"]*"`)

// reportOf decodes a report, without the time it was written and the ages of live objects.
func reportOf(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(age.ReplaceAll(b, []byte(`"age"`)), &m); err != nil {
		t.Fatalf("not a report: %v\n%s", err, b)
	}
	delete(m, "timestamp")
	return m
}

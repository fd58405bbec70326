package fluxchain_test

import (
	"strings"
	"testing"
)

// TestStatusMessageInjection replays, on the real apiserver, a Kustomization whose Ready message
// was written by someone else (a controller relaying a build error that quotes repository text):
// an ANSI escape, a carriage return that would overwrite the line, and a newline followed by a
// GitHub workflow command. Text, DOT and Mermaid output must carry it escaped: no raw control
// character, and no line that a CI runner would read as a command.
func TestStatusMessageInjection(t *testing.T) {
	needEnv(t)
	const ns = "fc-injection"
	f := newFixture(t, ns)
	f.gitRepo("fleet", rev1)
	payload := "kustomize build failed: \x1b[31mred\x1b[0m\rOVERWRITTEN\n::error file=x::forged\n##[group]forged"
	f.ks(kspec{name: "apps", applied: rev1, ready: cond("Ready", "False", "BuildFailed", payload)})
	for _, format := range []string{"text", "dot", "mermaid"} {
		args := []string{"-n", ns}
		if format != "text" {
			args = append(args, "-o", format)
		}
		out, stderr, code := run(t, args...)
		if code != 1 {
			t.Fatalf("%s: exit %d, want 1 (a finding)\n%s\n%s", format, code, out, stderr)
		}
		for _, s := range []string{out, stderr} {
			for _, line := range strings.Split(s, "\n") {
				if strings.ContainsAny(line, "\x1b\r") {
					t.Errorf("%s: raw control character in %q", format, line)
				}
				if t2 := strings.TrimLeft(line, " \t"); strings.HasPrefix(t2, "::") || strings.Contains(line, "##[") {
					t.Errorf("%s: a line a workflow runner reads as a command: %q", format, line)
				}
			}
		}
		if format == "text" && !strings.Contains(out, `\x1b[31mred`) {
			t.Errorf("text: the message is not shown escaped:\n%s", out)
		}
	}
}

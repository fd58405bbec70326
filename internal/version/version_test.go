package version

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func TestResolve(t *testing.T) {
	goPlat := runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
	noInfo := func() (*debug.BuildInfo, bool) { return nil, false }
	withInfo := func(v string, settings ...debug.BuildSetting) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			return &debug.BuildInfo{Main: debug.Module{Version: v}, Settings: settings}, true
		}
	}
	cases := []struct {
		name    string
		v, c, d string
		read    func() (*debug.BuildInfo, bool)
		want    string
	}{
		{"ldflags win", "v0.1.0", "3f2a1b0c9d8e7f6a", "2026-11-30T01:36:41Z", withInfo("v9.9.9"), "v0.1.0 (commit 3f2a1b0c9d8e, built 2026-11-30T01:36:41Z, " + goPlat + ")"},
		{"go install version", "", "", "", withInfo("v0.2.0"), "v0.2.0 (" + goPlat + ")"},
		{"work tree build is dev", "", "", "", withInfo("(devel)", debug.BuildSetting{Key: "vcs.revision", Value: "abc"}), "dev (commit abc, " + goPlat + ")"},
		{"goreleaser without git", "v0.1.0", "none", "0001-01-01T00:00:00Z", noInfo, "v0.1.0 (" + goPlat + ")"},
		{"no build info", "", "", "", noInfo, "dev (" + goPlat + ")"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := resolve(tc.v, tc.c, tc.d, tc.read).String()
			if got != tc.want {
				t.Fatalf("String() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestAddFlagPrintsVersion(t *testing.T) {
	cmd := &cobra.Command{Use: "x", Run: func(*cobra.Command, []string) { t.Fatal("ran the command") }}
	AddFlag(cmd)
	var out strings.Builder
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"--version"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if want := "x version " + String() + "\n"; out.String() != want {
		t.Fatalf("--version printed %q, want %q", out.String(), want)
	}
	if cmd.Flags().ShorthandLookup("v") != nil {
		t.Fatal("-v is taken; it is kubectl's verbosity flag")
	}
}

package cluster

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"
)

func TestQuote(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []string
		want string
	}{
		{"plain", []string{"kubectl", "-n", "prod", "delete", "pod", "web-0"}, "kubectl -n prod delete pod web-0"},
		{"shell metacharacters", []string{"delete", "pvc", "data;touch /tmp/x"}, `delete pvc 'data;touch /tmp/x'`},
		{"single quote", []string{"it's"}, `'it'\''s'`},
		{"empty", []string{""}, "''"},
		{"command substitution", []string{"$(id)", "`id`"}, "'$(id)' '`id`'"},
		{"jsonpath", []string{"jsonpath={.status.lastAppliedRevision}"}, "'jsonpath={.status.lastAppliedRevision}'"},
		{"newline stays quoted", []string{"a\nb"}, "'a\nb'"},
		{"rbac names", []string{"system:controller:x", "a@b", "k=v,w"}, "system:controller:x a@b k=v,w"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Quote(tc.in...); got != tc.want {
				t.Errorf("Quote(%q) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

// TestCommandReproducesConnection is issue 16 item 8: with --kubeconfig FILE a printed command
// carried only --context, and pasted into the same shell acted on ~/.kube/config's context of
// that name. Every flag that chose the connection is repeated; credentials never are.
func TestCommandReproducesConnection(t *testing.T) {
	s := func(v string) *string { return &v }
	groups := []string{"system:masters", "ops"}
	insecure := true
	f := &genericclioptions.ConfigFlags{KubeConfig: s("testdata/prod.yaml"), Context: s(""), ClusterName: s("prod-eu"),
		AuthInfoName: s("admin"), APIServer: s("https://bob:hunter2@10.0.0.1:6443"), Impersonate: s("jane"),
		ImpersonateGroup: &groups, BearerToken: s("s3cr3t-token"), Insecure: &insecure}
	flags, secrets := connectionFlags(f, "prod", "https://10.0.0.1:6443")
	abs, _ := filepath.Abs("testdata/prod.yaml")
	tg := Target{Context: "prod", Flags: flags, Secrets: secrets}
	got := tg.Command("-n", "web", "delete", "pod", "web-0")
	want := "kubectl --kubeconfig=" + abs + " --context=prod --cluster=prod-eu --user=admin --server=https://10.0.0.1:6443" +
		" --insecure-skip-tls-verify=true --as=jane --as-group=system:masters --as-group=ops -n web delete pod web-0"
	if strings.Contains(abs, " ") {
		t.Skip("working directory with a space")
	}
	if got != want {
		t.Fatalf("Command:\n got %s\nwant %s", got, want)
	}
	if strings.Contains(got, "hunter2") || strings.Contains(got, "s3cr3t") {
		t.Fatalf("a credential was printed: %s", got)
	}
	if note := tg.CredentialsNote(); !strings.Contains(note, "--token") || strings.Contains(note, "s3cr3t") {
		t.Fatalf("CredentialsNote() = %q", note)
	}
	if got := tg.Plugin("why-terminating", "pvc", "data"); !strings.HasPrefix(got, "kubectl why-terminating --kubeconfig=") {
		t.Fatalf("Plugin: flags must follow the plugin name: %s", got)
	}
}

func TestTargetWithoutFlags(t *testing.T) {
	if got := (Target{Context: "admin@prod"}).Command("get", "ns"); got != "kubectl --context=admin@prod get ns" {
		t.Fatalf("Command() = %q", got)
	}
	if got := (Target{Server: "https://x"}).Flag(); got != "--server=https://x" {
		t.Fatalf("Flag() without context = %q", got)
	}
	if got := (Target{Context: "a b"}).Flag(); got != "'--context=a b'" {
		t.Fatalf("Flag() quotes: %q", got)
	}
}

func TestOffline(t *testing.T) {
	s := func(v string) *string { return &v }
	if got := Offline(&genericclioptions.ConfigFlags{}).Command("get", "ns"); got != "kubectl --context=CONTEXT get ns" {
		t.Fatalf("no flags: %s", got)
	}
	got := Offline(&genericclioptions.ConfigFlags{KubeConfig: s("/k/c"), Context: s("prod")}).Command("get", "ns")
	if got != "kubectl --kubeconfig=/k/c --context=prod get ns" {
		t.Fatalf("flags: %s", got)
	}
}

// splitWords splits a command line as a POSIX shell does for the quoting forms a command may
// use (unquoted words, '…', "…" and backslash escapes), and refuses any unquoted character a
// shell would act on (; & | < > ( ) $ ` * ? [ ] # ~ { } !), so a word Quote left bare that a
// shell would expand or end is caught.
func splitWords(s string) ([]string, error) {
	var (
		words []string
		cur   strings.Builder
		in    bool
	)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				words, in = append(words, cur.String()), false
				cur.Reset()
			}
			continue
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated single quote")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if strings.IndexByte("$`", s[j]) >= 0 {
					return nil, fmt.Errorf("expansion %q inside double quotes", s[j])
				}
				if s[j] == '\\' && j+1 < len(s) && strings.IndexByte("$`\"\\\n", s[j+1]) >= 0 {
					j++
				}
				cur.WriteByte(s[j])
			}
			if j == len(s) {
				return nil, errors.New("unterminated double quote")
			}
			i = j
		case c == '\\':
			if i+1 == len(s) {
				return nil, errors.New("trailing backslash")
			}
			i++
			cur.WriteByte(s[i])
		case strings.IndexByte(";&|<>()$`*?[]#~{}!\r", c) >= 0:
			return nil, fmt.Errorf("unquoted %q at %d in %s", c, i, s)
		default:
			cur.WriteByte(c)
		}
		in = true
	}
	if in {
		words = append(words, cur.String())
	}
	return words, nil
}

func TestSplitWords(t *testing.T) {
	got, err := splitWords(`a 'b c' "d\"e" f\ g ''`)
	if err != nil || !slices.Equal(got, []string{"a", "b c", `d"e`, "f g", ""}) {
		t.Fatalf("splitWords = %q, %v", got, err)
	}
	if _, err := splitWords("data;touch /tmp/x"); err == nil {
		t.Fatal("an unquoted ; must be refused")
	}
}

// FuzzQuote: whatever the words, a POSIX shell splits the quoted command back into exactly them.
func FuzzQuote(f *testing.F) {
	for _, seed := range [][2]string{{"data;touch /tmp/x", ""}, {"it's", "$(id)"}, {"a\nb", "~root"}, {"{a,b}", "*"}, {"#x", "-n"}} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		args := []string{"-n", b, "delete", "pod", a, b}
		got, err := splitWords(Target{Flags: []string{"--context=" + b, "--kubeconfig=" + a}}.Command(args...))
		if err != nil {
			t.Fatal(err)
		}
		want := append([]string{"kubectl", "--context=" + b, "--kubeconfig=" + a}, args...)
		if !slices.Equal(got, want) {
			t.Fatalf("split back %q, want %q", got, want)
		}
	})
}

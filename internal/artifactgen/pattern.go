package artifactgen

import (
	"errors"
	"io/fs"
	"os"
	"regexp"
	"strings"

	"github.com/fluxcd/pkg/sourceignore"
)

// captureName is what may stand between braces in a pathPattern: "{app}".
var captureName = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// maxPatternArtifacts bounds the artifacts one pathPattern may discover.
const maxPatternArtifacts = 1000

// expandPattern turns the artifact templates of a generator with spec.pathPattern
// ("@alias/apps/{app}/envs/{env}") into one artifact per directory of the source that matches
// it, as source-watcher does: each capture matches one path element; the artifact names use the
// captures lower-cased, the copy operations the captures as written. Only a pattern over the
// repository itself (root) is expanded; an invalid pattern, or a name two directories share,
// yields nothing, so the tiers that read those artifacts stay not covered.
func expandPattern(pattern string, aliases map[string]string, root string, arts []outputArtifact) []outputArtifact {
	alias, rel, ok := strings.Cut(strings.TrimPrefix(pattern, "@"), "/")
	if !strings.HasPrefix(pattern, "@") || !ok || aliases[alias] == "" || root == "" {
		return nil
	}
	re, err := patternRegexp(rel)
	if err != nil {
		return nil
	}
	src, err := os.OpenRoot(root)
	if err != nil {
		return nil
	}
	defer src.Close()
	ps, _ := sourceignore.LoadIgnorePatterns(root, nil)
	ignore := sourceignore.NewDefaultMatcher(ps, nil)
	var out []outputArtifact
	seen := map[string]bool{}
	failed := false
	_ = fs.WalkDir(src.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || p == "." {
			return nil
		}
		if ignore.Match(strings.Split(p, "/"), true) {
			return fs.SkipDir
		}
		m := re.FindStringSubmatch(p)
		if m == nil {
			return nil
		}
		raw, lower := map[string]string{}, map[string]string{}
		for i, name := range re.SubexpNames() {
			if i > 0 && name != "" {
				raw[name], lower[name] = m[i], strings.ToLower(m[i])
			}
		}
		for _, a := range arts {
			b := outputArtifact{Name: fillCaptures(a.Name, lower)}
			for _, op := range a.Copy {
				op.From, op.To = fillCaptures(op.From, raw), fillCaptures(op.To, raw)
				b.Copy = append(b.Copy, op)
			}
			if seen[b.Name] || len(out) >= maxPatternArtifacts {
				failed = true
				return fs.SkipAll
			}
			seen[b.Name] = true
			out = append(out, b)
		}
		return nil
	})
	if failed {
		return nil
	}
	return out
}

// patternRegexp matches a directory against a pathPattern: literal text, and one path element
// per {capture}. Stray braces or a capture named twice are invalid.
func patternRegexp(rel string) (*regexp.Regexp, error) {
	if strings.ContainsAny(captureName.ReplaceAllString(rel, ""), "{}") {
		return nil, errors.New("stray brace")
	}
	var b strings.Builder
	b.WriteString("^")
	last := 0
	for _, m := range captureName.FindAllStringSubmatchIndex(rel, -1) {
		b.WriteString(regexp.QuoteMeta(rel[last:m[0]]))
		b.WriteString("(?P<" + rel[m[2]:m[3]] + ">[^/]+)")
		last = m[1]
	}
	b.WriteString(regexp.QuoteMeta(rel[last:]) + "$")
	return regexp.Compile(b.String())
}

// fillCaptures replaces each {name} in s with its captured value.
func fillCaptures(s string, values map[string]string) string {
	return captureName.ReplaceAllStringFunc(s, func(c string) string {
		if v, ok := values[c[1:len(c)-1]]; ok {
			return v
		}
		return c
	})
}

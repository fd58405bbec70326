package gitops

import (
	"maps"
	"slices"
	"strings"

	"github.com/fluxcd/pkg/sourceignore"
	"github.com/fluxcd/pkg/sourceignore/gitignore"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// gitRepositoryKind is the one source kind whose identity is read: a Git repository is named
// by its url and ref alone, so two GitRepositories of one url and ref hold the same files.
const gitRepositoryKind = "GitRepository"

// gitIdentity is where a GitRepository's artifact comes from, as the repository declares it:
// the url normalised (gitURL) and the ref (gitRef). ignore is spec.ignore, read only to tell
// whether a tier's path is left out of the artifact; content is set when the source adds to
// or takes from the checkout beyond its ignore rules (spec.include, spec.sparseCheckout,
// spec.recurseSubmodules), which makes it another artifact than the repository's.
type gitIdentity struct {
	url, ref, ignore string
	content          bool
}

// identities are the identities the builds declare, by source ("Kind/namespace/name"), each
// distinct spelling once.
type identities map[string][]gitIdentity

// sourceIdentities reads the identities objs declare.
func sourceIdentities(objs []*unstructured.Unstructured) identities {
	ids := identities{}
	for _, o := range objs {
		id, ident, ok := declaredIdentity(o)
		if ok && !slices.Contains(ids[id], ident) {
			ids[id] = append(ids[id], ident)
		}
	}
	return ids
}

// known is the one comparable identity src has, ok false when it has none or several.
func (ids identities) known(src string) (gitIdentity, bool) {
	c := ids[src]
	if len(c) != 1 || c[0].url == "" || c[0].ref == "" || c[0].content {
		return gitIdentity{}, false
	}
	return c[0], true
}

// same returns the sources (by "Kind/namespace/name") that are this repository as
// primary is, read from what objs declare: the GitRepositories whose url and ref are those of
// primary's own source. Primary's url and ref are read from the GitRepository objs declare
// under its name, or from the spec.sync of a Flux Operator FluxInstance that generates it;
// when neither says, or they disagree, or a name is declared twice with different specs,
// nothing is the same (never a guess). A url or ref with a variable, a ref that cannot be
// compared, or a source with content of its own is never the same.
func (ids identities) same(primary string) map[string]gitIdentity {
	own, ok := ids.known(primary)
	if !ok {
		return nil
	}
	out := map[string]gitIdentity{}
	for _, id := range slices.Sorted(maps.Keys(ids)) {
		if c, ok := ids.known(id); ok && id != primary && c.url == own.url && c.ref == own.ref {
			out[id] = c
		}
	}
	return out
}

// why says, for a GitRepository src that is not taken for the repository whose own source is
// primary, what the builds do not show: "" when both are known and differ.
func (ids identities) why(src, primary string) string {
	_, srcOK := ids.known(src)
	_, ownOK := ids.known(primary)
	switch {
	case len(ids[src]) == 0:
		return "no build of the repository declares " + src + ", so its url and ref are not known"
	case !srcOK:
		return src + " has no url and ref that compare (a variable, a short ref name, content of its own, or several specs)"
	case len(ids[primary]) == 0:
		return "no build of the repository declares " + primary + " (a GitRepository or a FluxInstance's sync), so the repository's own url and ref are not known"
	case !ownOK:
		return primary + " has no url and ref that compare"
	}
	return ""
}

// declaredIdentity is the identity of the Git source o declares or makes: a GitRepository's,
// or that of the source a FluxInstance's spec.sync generates (named spec.sync.name or after
// the FluxInstance's namespace). ok is false for any other object; an identity that cannot
// be read (a variable, an unknown ref) has an empty url or ref.
func declaredIdentity(o *unstructured.Unstructured) (id string, ident gitIdentity, ok bool) {
	switch {
	case o.GetKind() == gitRepositoryKind && strings.HasPrefix(o.GetAPIVersion(), "source.toolkit.fluxcd.io/"):
		url, _, _ := unstructured.NestedString(o.Object, "spec", "url")
		ref, _, _ := unstructured.NestedStringMap(o.Object, "spec", "ref")
		ident.url, ident.ref = gitURL(url), gitRef(ref)
		ident.ignore, _, _ = unstructured.NestedString(o.Object, "spec", "ignore")
		for _, f := range []string{"include", "sparseCheckout", "recurseSubmodules"} {
			if v, found, _ := unstructured.NestedFieldNoCopy(o.Object, "spec", f); found && v != nil && v != false {
				ident.content = true
			}
		}
		return gitRepositoryKind + "/" + o.GetNamespace() + "/" + o.GetName(), ident, true
	case o.GetKind() == "FluxInstance" && strings.HasPrefix(o.GetAPIVersion(), "fluxcd.controlplane.io/"):
		kind, _, _ := unstructured.NestedString(o.Object, "spec", "sync", "kind")
		if kind != gitRepositoryKind {
			return "", ident, false
		}
		name, _, _ := unstructured.NestedString(o.Object, "spec", "sync", "name")
		if name == "" {
			name = o.GetNamespace()
		}
		url, _, _ := unstructured.NestedString(o.Object, "spec", "sync", "url")
		ref, _, _ := unstructured.NestedString(o.Object, "spec", "sync", "ref")
		ident.url, ident.ref = gitURL(url), gitRef(map[string]string{"name": ref})
		return gitRepositoryKind + "/" + o.GetNamespace() + "/" + name, ident, true
	}
	return "", ident, false
}

// gitURL normalises a Git url so that the spellings of one repository compare equal: no
// scheme, no user, no trailing "/" or ".git", the host in lower case, and scp-like
// "git@host:owner/repo" read as "host/owner/repo". The path keeps its case (a server may
// tell owner/Repo from owner/repo). A variable or an empty url is "".
func gitURL(u string) string {
	u = strings.TrimSpace(u)
	if u == "" || strings.Contains(u, "${") {
		return ""
	}
	scheme, rest, hasScheme := strings.Cut(u, "://")
	if !hasScheme {
		rest = u
	}
	switch strings.ToLower(scheme) {
	case "https", "http", "ssh", "git":
	default:
		if hasScheme {
			return "" // file://, or a scheme this rule does not know
		}
	}
	if at := strings.Index(rest, "@"); at >= 0 && at < strings.IndexAny(rest+"/", "/:") {
		rest = rest[at+1:]
	}
	host, path, found := strings.Cut(rest, "/")
	if !hasScheme {
		h, p, scp := strings.Cut(rest, ":") // scp-like: host:owner/repo
		if !scp {
			return ""
		}
		host, path, found = h, p, true
	} else if h, port, ok := strings.Cut(host, ":"); ok && (port == "22" || port == "443") {
		host = h
	}
	if !found || host == "" {
		return ""
	}
	path = strings.TrimSuffix(strings.TrimSuffix(strings.Trim(path, "/"), ".git"), "/")
	if path == "" {
		return ""
	}
	return strings.ToLower(host) + "/" + path
}

// gitRef is a GitRepository's spec.ref as source-controller picks from it (commit, then name,
// then semver, then tag, then branch, the first one set), spelt so that a branch and its full
// name compare equal: "refs/heads/main" for branch main, "refs/tags/v1" for tag v1,
// "commit:<sha>" and "semver:<range>" otherwise. No ref, a variable, or a name that is not a
// full refs/ name is "": it cannot be compared.
func gitRef(ref map[string]string) string {
	for _, v := range ref {
		if strings.Contains(v, "${") {
			return ""
		}
	}
	switch {
	case ref["commit"] != "":
		return "commit:" + strings.ToLower(ref["commit"])
	case ref["name"] != "":
		if strings.HasPrefix(ref["name"], "refs/") {
			return ref["name"]
		}
		return ""
	case ref["semver"] != "":
		return "semver:" + ref["semver"]
	case ref["tag"] != "":
		return "refs/tags/" + ref["tag"]
	case ref["branch"] != "":
		return "refs/heads/" + ref["branch"]
	}
	return ""
}

// ignoresPath says whether a GitRepository's spec.ignore leaves the directory path (relative
// to the repository's top level) out of the artifact, so that a tier built from it there would
// find nothing. Rules that leave out single files under the path are not followed.
func (g gitIdentity) ignoresPath(path string) bool {
	if strings.TrimSpace(g.ignore) == "" {
		return false
	}
	ps := sourceignore.ReadPatterns(strings.NewReader(g.ignore), nil)
	m := gitignore.NewMatcher(ps)
	var parts []string
	for _, p := range strings.Split(strings.Trim(strings.TrimPrefix(path, "./"), "/"), "/") {
		if p == "" || p == "." {
			continue
		}
		parts = append(parts, p)
		if m.Match(parts, true) {
			return true
		}
	}
	return false
}

package saferetire

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/helmrender"
	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/retire"
	"github.com/kubeforensics/suite/internal/retire/execute"
)

// LivePlan is what a run without --dry-run carries out, in the form its digest covers: the
// connection, the revisions compared, every object a step acts on as read right before the
// digest was taken, and the steps in order with their commands. Its compact JSON encoding (the
// fields in this order, no maps, see encode) is canonical: the digest is the SHA-256 of those
// bytes, so anyone can check it from the plan in the json output.
type LivePlan struct {
	Context string `json:"context"`
	Server  string `json:"server"`
	// Base and Candidate are the commits compared; Candidate is "" for the working tree,
	// whose content the plan's steps stand for.
	Base      string       `json:"base"`
	Candidate string       `json:"candidate"`
	Objects   []PlanObject `json:"objects"`
	Steps     []PlanStep   `json:"steps"`
}

// PlanObject is one object a step acts on, as it was read: "" UID and resourceVersion when it
// no longer exists.
type PlanObject struct {
	Object          string `json:"object"`
	UID             string `json:"uid"`
	ResourceVersion string `json:"resourceVersion"`
}

// PlanStep is one live step: what it does and the command that does the same by hand.
type PlanStep struct {
	Step    string `json:"step"`
	Command string `json:"command"`
}

// ValidDigest tells whether s has the form of a digest: `sha256:` and 64 lowercase hex digits.
func ValidDigest(s string) bool {
	h, ok := strings.CutPrefix(s, "sha256:")
	if !ok || len(h) != sha256.Size*2 || strings.ToLower(h) != h {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil
}

// encode is the canonical encoding of p that its digest covers: compact JSON, the fields in
// declaration order, and no HTML escaping (`<`, `>` and `&` as themselves), as other JSON
// tools write it.
func (p LivePlan) encode() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(p); err != nil {
		return nil, fmt.Errorf("encoding the plan: %w", err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Digest is the plan's digest: `sha256:<hex>` of its canonical encoding.
func (p LivePlan) Digest() (string, error) {
	b, err := p.encode()
	if err != nil {
		return "", err
	}
	return digestOf(b), nil
}

// digestOf is `sha256:<hex>` of b.
func digestOf(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// objectName is how a plan names ref: `Kind.group namespace/name`.
func objectName(ref retire.Ref) string {
	if ref.Namespace == "" {
		return ref.GroupKind() + " " + ref.Name
	}
	return ref.GroupKind() + " " + ref.Namespace + "/" + ref.Name
}

// buildPlan reads, fresh, every object steps act on and returns the plan they make on target
// for the revisions of res.
func buildPlan(ctx context.Context, c *cluster.Clients, res *Result, steps []liveStep) (LivePlan, error) {
	p := LivePlan{Context: c.Target.Context, Server: c.Target.Server, Base: res.Base.Commit, Candidate: res.Candidate.Commit,
		Objects: []PlanObject{}, Steps: []PlanStep{}}
	var catalog *kinds.Catalog
	seen := map[string]bool{}
	for _, s := range steps {
		p.Steps = append(p.Steps, PlanStep{Step: s.action.Step, Command: s.action.Command})
		name := objectName(s.object)
		if seen[name] {
			continue
		}
		seen[name] = true
		if catalog == nil {
			cat, err := kinds.Discover(c.Discovery)
			if err != nil {
				return LivePlan{}, fmt.Errorf("discovering the API to read the plan's objects: %w", err)
			}
			catalog = cat
		}
		obj, err := readObject(ctx, c, catalog, s.object)
		if err != nil {
			return LivePlan{}, err
		}
		p.Objects = append(p.Objects, obj)
	}
	return p, nil
}

// readObject reads ref's UID and resourceVersion; an object that is gone reads as empty ones.
func readObject(ctx context.Context, c *cluster.Clients, catalog *kinds.Catalog, ref retire.Ref) (PlanObject, error) {
	obj := PlanObject{Object: objectName(ref)}
	res, ok := catalog.ForGroupKind(schema.GroupKind{Group: ref.Group, Kind: ref.Kind})
	if !ok {
		return obj, fmt.Errorf("reading %s for the plan: the API does not serve %s", obj.Object, ref.GroupKind())
	}
	ri := c.Metadata.Resource(res.GVR())
	get := ri.Get
	if res.Namespaced {
		get = ri.Namespace(ref.Namespace).Get
	}
	m, err := get(ctx, ref.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return obj, nil
	case err != nil:
		return obj, fmt.Errorf("reading %s for the plan: %w", obj.Object, err)
	}
	obj.UID, obj.ResourceVersion = string(m.GetUID()), m.GetResourceVersion()
	return obj, nil
}

// confirmCommand is the command that carries out the plan of digest without asking: this
// invocation's inputs, the revisions pinned to the commits compared, and --confirm.
func (req *Request) confirmCommand(res *Result, digest string) string {
	return req.Target.Plugin("safe-retire", append(req.planArgs(res), "--confirm="+digest)...)
}

// dryRunCommand is the dry run that shows the plan again, with its digest.
func (req *Request) dryRunCommand(res *Result) string {
	return req.Target.Plugin("safe-retire", append(req.planArgs(res), "--dry-run")...)
}

// planArgs are the flags besides the connection that decide the plan.
func (req *Request) planArgs(res *Result) []string {
	args := []string{"--repo=" + absolute(req.Repo), "--base=" + res.Base.Commit}
	if res.Candidate.Commit != "" {
		args = append(args, "--candidate="+res.Candidate.Commit)
	}
	if req.Clients != nil && req.Clients.NamespaceExplicit {
		args = append(args, "--namespace="+req.Clients.Namespace)
	}
	add := func(name, v string) {
		if v != "" {
			args = append(args, "--"+name+"="+v)
		}
	}
	add("path", req.Path)
	add("source-root", req.SourceRoot)
	add("charts", absolute(req.ChartsDir))
	for _, k := range req.PersistentKinds {
		add("persistent-kind", k)
	}
	if req.KubeVersion != helmrender.DefaultKubeVersion {
		add("kube-version", req.KubeVersion)
	}
	if req.AllowNetwork {
		args = append(args, "--allow-network", "--network-timeout="+req.NetworkTimeout.String())
	}
	return args
}

// absolute is dir made absolute, so a printed command runs from any directory; dir as given
// when it cannot be.
func absolute(dir string) string {
	if dir == "" {
		return ""
	}
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}

// Confirmation is the plan a run without --dry-run would carry out, with its digest and the
// command that carries out exactly that plan without asking.
type Confirmation struct {
	Digest string `json:"digest"`
	// Command is "" when the plan has no step: there is nothing to carry out.
	Command string   `json:"command,omitempty"`
	Plan    LivePlan `json:"plan"`
}

// stillReviewed re-reads ref and returns the version the confirmed plan pinned it at, which the
// step is then bound to; it fails with a *execute.ChangedError unless ref is still at that UID
// and resourceVersion: a step of a confirmed plan acts only on what was reviewed.
func (req *Request) stillReviewed(ctx context.Context, reviewed []PlanObject, ref retire.Ref) (execute.Bound, error) {
	name := objectName(ref)
	for _, want := range reviewed {
		if want.Object != name {
			continue
		}
		catalog, err := kinds.Discover(req.Clients.Discovery)
		if err != nil {
			return execute.Bound{}, fmt.Errorf("discovering the API to re-read %s: %w", name, err)
		}
		got, err := readObject(ctx, req.Clients, catalog, ref)
		if err != nil {
			return execute.Bound{}, err
		}
		was := execute.Bound{UID: types.UID(want.UID), ResourceVersion: want.ResourceVersion}
		if got != want {
			return execute.Bound{}, &execute.ChangedError{Object: ref, Reviewed: true, Was: was,
				UID: types.UID(got.UID), ResourceVersion: got.ResourceVersion}
		}
		return was, nil
	}
	return execute.Bound{}, fmt.Errorf("%s is not among the objects of the confirmed plan", name)
}

package finalizers

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"

	"github.com/kubeforensics/suite/internal/report"
)

// The API server's own words when an admission webhook stops a request: the call failed and
// the webhook fails closed, or the webhook answered and refused.
var (
	failedCallRE = regexp.MustCompile(`failed calling webhook "([^"]+)"`)
	deniedRE     = regexp.MustCompile(`admission webhook "([^"]+)" denied the request`)
)

// namedFailure is one admission webhook a message names as having stopped a request.
type namedFailure struct {
	name   string
	denied bool // it answered and refused; otherwise calling it failed
}

// webhookNamesIn returns the webhooks msg names as having stopped a request, once each.
func webhookNamesIn(msg string) []namedFailure {
	var out []namedFailure
	seen := map[string]bool{}
	add := func(re *regexp.Regexp, denied bool) {
		for _, m := range re.FindAllStringSubmatch(msg, -1) {
			if !seen[m[1]] {
				seen[m[1]] = true
				out = append(out, namedFailure{name: m[1], denied: denied})
			}
		}
	}
	add(failedCallRE, false)
	add(deniedRE, true)
	return out
}

// namedWebhookBlockers returns, for every webhook that a True condition of the object's own
// names as having stopped its controller's requests (what: "the namespace controller's
// deletes"), the admission configuration (validating or mutating) that holds a webhook of that
// name, with the Service it calls, as a blocker; a configuration already among have is not
// repeated. This needs no guess about which webhook intercepts which request: the API server
// said which one stopped it. A named webhook that no configuration holds any more is a gap:
// the condition may be stale, or the configuration renamed, and the tool cannot tell.
func (x *Explainer) namedWebhookBlockers(ctx context.Context, conds []Condition, what string, have []Blocker) ([]Blocker, []report.Gap) {
	var out []Blocker
	var gaps []report.Gap
	for _, c := range conds {
		if c.Status != "True" {
			continue
		}
		for _, nf := range webhookNamesIn(c.Message) {
			found, err := x.webhooksNamed(ctx, nf.name)
			if err != nil {
				gaps = append(gaps, listGap(objectID("admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations", "", ""), "finding webhook "+nf.name+", which condition "+c.Type+" names", err))
				continue
			}
			if len(found) == 0 {
				gaps = append(gaps, report.Gap{Op: report.OpList, Subject: objectID("admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations", "", ""), Reason: report.GapNotFound,
					What: "the admission configuration holding webhook " + nf.name + ", which condition " + c.Type + " names as stopping " + what + " (no validating or mutating configuration holds it now: the condition may be stale)"})
				continue
			}
			for _, w := range found {
				if containsBlocker(have, w.config) || containsBlocker(out, w.config) {
					continue
				}
				out = append(out, namedWebhookBlocker(w, nf, c, what))
			}
		}
	}
	return out, gaps
}

// namedWebhookBlocker is the blocker for webhook w that condition c names.
func namedWebhookBlocker(w namedHook, nf namedFailure, c Condition, what string) Blocker {
	how := "calling it fails"
	if nf.denied {
		how = "it answers and denies them"
	}
	b := Blocker{
		Object:  w.config,
		Code:    ReasonWebhookRejectsDelete,
		Reason:  fmt.Sprintf("holds webhook %s, which stops %s (%s), as condition %s says", nf.name, what, how, c.Type),
		Details: []string{c.Reason + ": " + c.Message},
		webhook: nf.name,
		named:   &nf,
	}
	if w.service != nil {
		b.service = w.service
		b.Reason += fmt.Sprintf("; it calls %s", w.service.String())
	} else if w.url != "" {
		b.Reason += "; it calls " + w.url + ", outside the cluster"
	}
	return b
}

// namedHook is a webhook found by name, with what it calls.
type namedHook struct {
	config  ObjectRef
	service *serviceRef
	url     string
}

// webhooksNamed returns every webhook, validating or mutating and of any failure policy, whose
// name is name.
func (x *Explainer) webhooksNamed(ctx context.Context, name string) ([]namedHook, error) {
	all, err := x.allWebhooks(ctx)
	if err != nil {
		return nil, err
	}
	var out []namedHook
	for _, w := range all {
		if w.name == name {
			out = append(out, hookOf(w.config, w.service, w.url))
		}
	}
	return out, nil
}

func containsBlocker(bs []Blocker, ref ObjectRef) bool {
	for _, b := range bs {
		if b.Object == ref {
			return true
		}
	}
	return false
}

// namedWebhookRemedies are the steps for a webhook that the object's own condition names: when
// its backend is down or gone, the usual ones (bring it back, or delete what an uninstalled
// product left). When its backend runs (or it calls a URL), nothing is down to bring back: fix
// what the API server's call meets (when the call fails), and set the configuration aside, which
// is what unblocks: save it, delete it, apply it again once the deletion has gone through.
func (x *Explainer) namedWebhookRemedies(ctx context.Context, b Blocker, leftBehind Remediation) []Remediation {
	aside := Remediation{
		Code: ReasonDeleteWebhookConfig,
		Summary: fmt.Sprintf("Set %s aside so the requests it stops go through: save it (%s), delete it, and apply the saved copy again once the deletion has finished.",
			b.Object.String(), x.kubectl("", "get", b.Object.QualifiedResource(), b.Object.Name, "-o", "yaml")+" > "+b.Object.Name+".yaml"),
		Command: x.kubectl("", "delete", b.Object.QualifiedResource(), b.Object.Name),
		Cost:    "until it is applied again, the policy it enforces is not applied to any request",
	}
	if b.service == nil {
		if b.named.denied {
			return []Remediation{aside}
		}
		return []Remediation{{Summary: fmt.Sprintf("The API server's call to webhook %s fails (%s): fix what it calls.", b.webhook, strings.Join(b.Details, "; "))}, aside}
	}
	ws, exists, err := x.backendWorkloads(ctx, *b.service)
	if err != nil || !exists || len(ws) == 0 {
		return x.backendRemedies(ctx, b, leftBehind)
	}
	for _, w := range ws {
		if !w.controller().Healthy {
			return x.backendRemedies(ctx, b, leftBehind)
		}
	}
	if b.named.denied {
		aside.Summary = fmt.Sprintf("%s answers and denies these requests by its own policy; ", b.service.String()) + aside.Summary
		return []Remediation{aside}
	}
	fix := x.unreachableBackend(ctx, b, *b.service)
	var names []string
	for _, w := range ws {
		names = append(names, w.ref.String())
	}
	fix.Summary += " Behind it: " + strings.Join(names, ", ") + "."
	return []Remediation{fix, aside}
}

// hookOf is a webhook of config ref that calls svc (in the cluster) or url.
func hookOf(ref ObjectRef, svc *admissionv1.ServiceReference, url *string) namedHook {
	h := namedHook{config: ref}
	if svc != nil {
		h.service = &serviceRef{namespace: svc.Namespace, name: svc.Name}
	}
	if url != nil {
		h.url = *url
	}
	return h
}

package mockhost

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/agentapp/conformance/drivers/protocol"
)

var (
	//go:embed center.html
	centerHTML     string
	centerTemplate = template.Must(template.New("center").Parse(centerHTML))
)

// centerApp, centerEntry, centerBlocker are what the app center shows.
type centerApp struct {
	AppID, DisplayName string
	Entries            []centerEntry
}

type centerEntry struct {
	Key, Title, Status string
	Blockers           []centerBlocker
	Actions            []protocol.SetupAction
}

type centerBlocker struct {
	Ref     string // kind:key of the check
	Message string
}

// centerPage serves the app center (spec 002, Launch flow: "Open app
// center", and on needs-setup or blocked "Show setupActions and blocker
// reasons"): every installed app, each entry's readiness status, the
// reasons it cannot launch and the setup actions that would fix it, as
// text, with data-app-id, data-entry-key, data-status, data-blocker and
// data-setup-action attributes to find them by.
func (h *Host) centerPage(w http.ResponseWriter, r *http.Request) {
	if !h.surf.isCenter(r.PathValue("token")) {
		http.NotFound(w, r)
		return
	}
	nonce := token()
	var b bytes.Buffer
	data := struct {
		Nonce  string
		Apps   []centerApp
		Spin   bool
		Follow template.JS
	}{nonce, h.centerApps(), h.pagesSpin(), h.follow()}
	if err := centerTemplate.Execute(&b, data); err != nil {
		http.Error(w, fmt.Sprintf("rendering the app center: %v", err), http.StatusInternalServerError)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/html; charset=utf-8")
	script := "" // the page runs no script, but a spinning one or a web view's
	if data.Spin || data.Follow != "" {
		script = fmt.Sprintf("; script-src 'nonce-%s'; connect-src 'self'", nonce)
	}
	hd.Set("Content-Security-Policy", fmt.Sprintf("default-src 'none'; style-src 'nonce-%s'%s; base-uri 'none'; form-action 'none'; frame-ancestors 'none'", nonce, script))
	pageHeaders(hd)
	_, _ = w.Write(b.Bytes())
}

// centerApps judges every installed app's entries now.
func (h *Host) centerApps() []centerApp {
	h.mu.Lock()
	type row struct{ id, name, path string }
	var rows []row
	for id, a := range h.apps {
		rows = append(rows, row{id, a.row.DisplayName, a.path})
	}
	h.mu.Unlock()
	sort.Slice(rows, func(i, j int) bool { return rows[i].id < rows[j].id })
	out := []centerApp{}
	for _, a := range rows {
		ca := centerApp{AppID: a.id, DisplayName: a.name}
		if ca.DisplayName == "" {
			ca.DisplayName = a.id
		}
		pk, _, err := h.load(a.path)
		if err == nil && pk != nil {
			for _, key := range manifestEntryKeys(pk.Manifest) {
				ca.Entries = append(ca.Entries, h.centerEntry(a.id, key, pk.Manifest))
			}
		}
		// fault: center-omits-ready-apps — the app center lists only apps with an entry that needs attention.
		if h.faults.Has("center-omits-ready-apps") && !slices.ContainsFunc(ca.Entries, func(e centerEntry) bool { return e.Status != protocol.StatusReady }) {
			continue
		}
		out = append(out, ca)
	}
	return out
}

// centerEntry is one entry's row.
func (h *Host) centerEntry(appID, key string, m map[string]any) centerEntry {
	e, _ := manifestEntry(m, key)
	ce := centerEntry{Key: key, Title: stringField(e, "title"), Status: protocol.StatusUnknown}
	r, rpcErr := h.readiness(protocol.ReadinessParams{AppID: appID, Entry: key})
	if rpcErr != nil {
		return ce
	}
	// fault: center-readiness-kept — the app center judges each entry once and keeps it: an entry made unready later is still shown as it was (held-out m06).
	if h.faults.Has("center-readiness-kept") {
		kept, _ := h.centerSeen.LoadOrStore(appID+"\x00"+key, r)
		r = kept.(protocol.ReadinessResult)
	}
	ce.Status = r.Status
	// fault: center-hides-blockers — the app center shows each entry's status only: no blocker reasons, no setup actions.
	if h.faults.Has("center-hides-blockers") {
		return ce
	}
	blockers := r.Blockers
	// fault: center-shows-first-blocker — the app center shows the first reason an entry is not ready and drops the others.
	if h.faults.Has("center-shows-first-blocker") {
		blockers = blockers[:min(len(blockers), 1)]
	}
	for _, b := range blockers {
		// fault: center-hides-policy-blockers — the app center explains only blockers a setup action can fix: a tenant policy's reason is left out.
		if strings.HasPrefix(b, "policy:") && h.faults.Has("center-hides-policy-blockers") {
			continue
		}
		msg := blockerMessage(r, b)
		// variant: center-own-words — the app center says each reason in its own words, naming the failing check's kind and key, not readiness's message.
		if h.variants.Has("center-own-words") {
			msg = blockerInOwnWords(r, b)
		}
		ce.Blockers = append(ce.Blockers, centerBlocker{Ref: b, Message: msg})
	}
	ce.Actions = r.SetupActions
	return ce
}

// blockerInOwnWords names the check behind blocker by its kind and key, as
// a host that words its app center itself does.
func blockerInOwnWords(r protocol.ReadinessResult, blocker string) string {
	if c, ok := blockerCheck(r, blocker); ok {
		return "Needs attention: " + c.Kind + " " + c.Key
	}
	return blocker
}

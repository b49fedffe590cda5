package mockhost

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
)

// Secret bindings: values the user bound to an app's own secret slots
// (app/secret), beside the host-wide secrets of host/configure. They belong
// to the app's data: an update keeps them, an uninstall keeping data keeps
// them for a reinstall, one deleting data deletes them (spec 002 Cleanup;
// spec 003 What must not be overwritten).

// bindSecret answers app/secret.
func (h *Host) bindSecret(p protocol.SecretParams) (any, *jsonrpc2.Error) {
	ok, e := h.bindSecretChecked(p)
	// fault: secret-answers-echo-value — every answer to app/secret, a result or an error, repeats the binding, value included.
	if h.faults.Has("secret-answers-echo-value") {
		echo := fmt.Sprintf("%s=%s", p.Key, p.Value)
		if e != nil {
			e.Message += " (binding " + echo + ")"
			return nil, e
		}
		return map[string]any{"ok": true, "bound": echo}, nil
	}
	if e != nil {
		return nil, e
	}
	return ok, nil
}

// bindSecretChecked binds p's value to an installed app's own slot.
func (h *Host) bindSecretChecked(p protocol.SecretParams) (protocol.OK, *jsonrpc2.Error) {
	pk, e := h.installedPackage(p.AppID)
	if e != nil {
		return protocol.OK{}, e
	}
	// fault: secret-slot-case-folded — app/secret takes a key that only case-folds onto one of the app's slots, and binds it under the caller's spelling.
	caseFolded := h.faults.Has("secret-slot-case-folded") && slices.ContainsFunc(secretKeys(pk), func(k string) bool { return strings.EqualFold(k, p.Key) })
	slots := secretKeys(pk)
	// fault: secret-readiness-slot-refused — app/secret takes only the keys of the manifest's secrets list, not a secret the app's readiness checks name.
	if h.faults.Has("secret-readiness-slot-refused") {
		slots = manifestSecretKeys(pk)
	}
	if !slices.Contains(slots, p.Key) && !caseFolded {
		// fault: secret-refusal-echoes-value — the refusal of a slot the app does not have repeats the binding, value included.
		if h.faults.Has("secret-refusal-echoes-value") {
			return protocol.OK{}, invalidParams(protocol.MethodSecret, "key", fmt.Sprintf("names no secret slot of app %q: %q (binding %s=%s refused)", p.AppID, p.Key, p.Key, p.Value))
		}
		return protocol.OK{}, invalidParams(protocol.MethodSecret, "key", fmt.Sprintf("names no secret slot of app %q: %q", p.AppID, p.Key))
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.bindings[p.AppID] == nil {
		h.bindings[p.AppID] = map[string]string{}
	}
	key := p.Key
	// fault: secret-binding-key-folded — a binding is kept under its slot's name in lower case, so a slot the app names with capitals never counts as configured.
	if h.faults.Has("secret-binding-key-folded") {
		key = strings.ToLower(key)
	}
	h.bindings[p.AppID][key] = p.Value
	return protocol.OK{OK: true}, nil
}

// boundSecrets lists the secret slots of appID with a bound value.
func (h *Host) boundSecrets(appID string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for k, v := range h.bindings[appID] {
		if v != "" {
			out = append(out, k)
		}
	}
	// fault: secret-binding-by-slot-name — a slot bound for any app counts as bound for every app declaring a slot of that name (one keychain asked by slot key; held-out l01).
	if h.faults.Has("secret-binding-by-slot-name") {
		for _, kv := range h.bindings {
			for k, v := range kv {
				if v != "" && !slices.Contains(out, k) {
					out = append(out, k)
				}
			}
		}
	}
	return out
}

// secretBindingsAtUninstall drops or keeps appID's bindings with its data
// (under h.mu).
func (h *Host) secretBindingsAtUninstallLocked(appID string, keep bool) {
	drop := !keep
	// fault: delete-data-keeps-secret-bindings — uninstall deleting data leaves the app's bound secrets for the next install.
	if !keep && h.faults.Has("delete-data-keeps-secret-bindings") {
		drop = false
	}
	// fault: keep-data-drops-secret-bindings — uninstall keeping data forgets the secrets the user bound to the app.
	if keep && h.faults.Has("keep-data-drops-secret-bindings") {
		drop = true
	}
	if drop {
		delete(h.bindings, appID)
		// fault: secret-bindings-dropped-by-prefix — uninstall deleting data forgets the secrets bound to every app whose id begins with the uninstalled one's (the host deletes by key prefix).
		if h.faults.Has("secret-bindings-dropped-by-prefix") {
			for id := range h.bindings {
				if strings.HasPrefix(id, appID) {
					delete(h.bindings, id)
				}
			}
		}
	}
}

// installedPackage loads the installed copy of appID's package: -32004 for
// an app that is not installed.
func (h *Host) installedPackage(appID string) (*agentpkg.Package, *jsonrpc2.Error) {
	h.mu.Lock()
	a, ok := h.apps[appID]
	var path string
	if ok {
		path = a.path
	}
	// fault: app-calls-after-uninstall — the calls that name an installed app (app/secret, app/overlay, app/knowledge, app/file) still find an uninstalled one, in the folder it was installed from.
	if source, was := h.paths[appID]; !ok && was && h.faults.Has("app-calls-after-uninstall") {
		path, ok = source, true
	}
	h.mu.Unlock()
	if !ok {
		return nil, rpcError(protocol.CodeAppNotFound, fmt.Sprintf("no installed app with appId %q", appID), nil)
	}
	pk, _, err := h.load(path)
	if err != nil || pk == nil {
		return nil, rpcError(protocol.CodeInternalError, fmt.Sprintf("the package of %s cannot be read", appID), nil)
	}
	return pk, nil
}

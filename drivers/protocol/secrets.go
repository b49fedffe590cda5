package protocol

// Secret bindings (docs/host-control-protocol.md, "app/secret"): spec 000
// Storage and data boundary 3, "Credentials belong in lime.secrets, never in
// package files or storage tables"; spec 002 Cleanup, "uninstall keep data,
// uninstall delete data".

// MethodSecret binds a value to one of an installed app's secret slots, as
// the user does in the app's settings.
const MethodSecret = "app/secret"

// SecretParams binds value to the secret slot key of app appId; it replaces
// the value bound before.
type SecretParams struct {
	AppID string `json:"appId"`
	Key   string `json:"key"`
	Value string `json:"value"`
}

package protocol

// What a release upgrade must not overwrite beside the app's storage (spec
// 003, What must not be overwritten: "user Knowledge bindings", "workspace
// files"): the knowledge pack the user bound to one of an app's knowledge
// templates, and the files of the app's workspace
// (docs/host-control-protocol.md, "app/knowledge and app/file").

// MethodKnowledge binds a knowledge pack to one of an installed app's
// knowledgeTemplates, as the user does, and answers the pack bound now.
const MethodKnowledge = "app/knowledge"

// MethodFile writes one file of an installed app's workspace, as its user
// does, and answers what the file holds now.
const MethodFile = "app/file"

// KnowledgeParams binds pack to template of app appId; without pack it only
// reads the binding.
type KnowledgeParams struct {
	AppID    string `json:"appId"`
	Template string `json:"template"`
	Pack     string `json:"pack,omitempty"`
}

// KnowledgeResult is the pack bound to the template after the call; nil
// when none is.
type KnowledgeResult struct {
	OK       bool    `json:"ok"`
	Template string  `json:"template"`
	Pack     *string `json:"pack"`
}

// FileParams writes content to path (relative, `/`-separated) of app
// appId's workspace; without content it only reads the file.
type FileParams struct {
	AppID   string  `json:"appId"`
	Path    string  `json:"path"`
	Content *string `json:"content,omitempty"`
}

// FileResult is what the workspace file holds after the call; nil when
// there is no such file.
type FileResult struct {
	OK      bool    `json:"ok"`
	Path    string  `json:"path"`
	Content *string `json:"content"`
}

package mcptools

import (
	"context"
	"encoding/json"
	"reflect"

	"github.com/cairn-dev/cairn/vault"
)

// graphTools are the gateway's link and reorganization tools.
func graphTools() []*Tool {
	linkItem := `{"type":"object","properties":{
"from":{"type":"string","description":"The source note: id, path, [[Title]], title or alias."},
"to":{"type":"string","description":"An existing target note (id, path, title...)."},
"toTitle":{"type":"string","description":"Or a title, possibly of a note not written yet (a forward reference)."},
"type":{"type":"string","description":"Edge type, a lower-case word such as depends_on, decided_in, relates_to: the name of the property the link goes in, so not one with another meaning (tags, aliases, created, status...)."}},
"required":["from","type"],"additionalProperties":false}`
	return []*Tool{
		{
			Name: "link", Toolset: ToolsetGateway, Title: "Link two notes", Idempotent: true,
			Description: "Add a typed edge from one note to another, kept in the source note's frontmatter as a list property named after the type (`depends_on: [\"[[Pricing]]\"]`), which Obsidian shows and edits. The target is `to` (an existing note) or `toTitle` (a title; a note that does not exist yet is a forward reference that resolves when it is created). Both ends in the same space. The same edge twice is one edge.",
			Schema:      linkItem,
			Output:      reflect.TypeFor[vault.LinkOutcome](),
			Handle:      linkOne,
		},
		{
			Name: "link_many", Toolset: ToolsetGateway, Title: "Link many notes", Idempotent: true,
			Description: "Add many typed edges in one call, best effort: results[] says created, unchanged or error (with the reason) for each; the edges that can be added are written in one commit. Retry only the errors.",
			Schema:      `{"type":"object","properties":{"links":{"type":"array","minItems":1,"maxItems":1000,"items":` + linkItem + `}},"required":["links"],"additionalProperties":false}`,
			Output:      reflect.TypeFor[vault.LinkOutcome](),
			Handle:      linkMany,
		},
		{
			Name: "move_note", Toolset: ToolsetGateway, Title: "Move a note", Idempotent: false,
			Description: "Move a note to another folder of its project, keeping its file name. Its id stays; every link that would stop naming it (wikilinks, embeds, heading and block links, Markdown links, link properties) is rewritten in the same commit in its own style, as Obsidian does; no other line changes. Refused onto an existing file, outside the project, into hidden folders.",
			Schema: `{"type":"object","properties":{
"ref":{"type":"string","description":"The note: id, path, [[Title]], title or alias."},
"toPath":{"type":"string","description":"Destination folder (a vault path, as list_notes gives)."},
"versionToken":{"type":"string","description":"Optional: move only if the note is still at this version."}},
"required":["ref","toPath"],"additionalProperties":false}`,
			Output: reflect.TypeFor[vault.Moved](),
			Handle: moveNote,
		},
		{
			Name: "rename_note", Toolset: ToolsetGateway, Title: "Rename a note", Idempotent: false,
			Description: "Change a note's title: its # H1 and file name follow, and every link to it (wikilinks, embeds, heading and block links, Markdown links, link properties) is rewritten to the new name in the same commit, in its own style (a label, a path, Markdown stay), as Obsidian does. With keepAlias, the old title also joins `aliases`.",
			Schema: `{"type":"object","properties":{
"ref":{"type":"string","description":"The note: id, path, [[Title]], title or alias."},
"title":{"type":"string","description":"The new title."},
"keepAlias":{"type":"boolean","description":"Also keep the old title in the note's aliases, for search and get_note (default false). Links are rewritten either way."},
"versionToken":{"type":"string","description":"Optional: rename only if the note is still at this version."}},
"required":["ref","title"],"additionalProperties":false}`,
			Output: reflect.TypeFor[vault.Moved](),
			Handle: renameNote,
		},
		{
			Name: "move_folder", Toolset: ToolsetGateway, Title: "Move a folder", Idempotent: false,
			Description: "Move a whole folder under another parent folder of the same project. Every note keeps its id; a project folder keeps its handle; every link that would stop naming a note or file it holds is rewritten in the same commit, in its own style, as Obsidian does.",
			Schema: `{"type":"object","properties":{
"project":{"type":"string","description":"Project handle; path may then be relative to the project's folder."},
"path":{"type":"string","description":"The folder to move."},
"toParent":{"type":"string","description":"The folder to move it into."}},
"required":["path","toParent"],"additionalProperties":false}`,
			Output: reflect.TypeFor[vault.Moved](),
			Handle: moveFolder,
		},
		{
			Name: "rename_folder", Toolset: ToolsetGateway, Title: "Rename a folder", Idempotent: false,
			Description: "Rename a folder in place. Every note keeps its id; if the folder is a project, its handle does not change (use rename_project for that); every link that would stop naming a note or file it holds is rewritten in the same commit, in its own style, as Obsidian does.",
			Schema: `{"type":"object","properties":{
"project":{"type":"string","description":"Project handle; path may then be relative to the project's folder."},
"path":{"type":"string","description":"The folder to rename."},
"name":{"type":"string","description":"Its new name (one folder name, no slashes)."}},
"required":["path","name"],"additionalProperties":false}`,
			Output: reflect.TypeFor[vault.Moved](),
			Handle: renameFolder,
		},
		{
			Name: "rename_project", Toolset: ToolsetGateway, Title: "Rename a project", Idempotent: false,
			Description: "Change a project's handle and/or display name. The old handle stays as an alias and keeps working everywhere (as `project`, in tokens and grants). The folder does not move.",
			Schema: `{"type":"object","properties":{
"project":{"type":"string","description":"Current handle (or an alias)."},
"handle":{"type":"string","description":"New handle, in the same space."},
"name":{"type":"string","description":"New display name."}},
"required":["project"],"additionalProperties":false}`,
			Output: reflect.TypeFor[vault.Project](),
			Handle: renameProject,
		},
		{
			Name: "create_notes", Toolset: ToolsetGateway, Title: "Create many notes", Idempotent: false,
			Description: "Create many shared notes in one call, best effort and not transactional: results[] says ok (with id and path) or error (with the reason) for each, by index; the valid ones are written in one commit. Retry only the failures. Each note is as in create_note; links between notes of the batch resolve by title.",
			Schema: `{"type":"object","properties":{
"project":{"type":"string","description":"Default project for notes that do not name one."},
"notes":{"type":"array","minItems":1,"maxItems":1000,"items":{"type":"object","properties":{
"project":{"type":"string"},"body":{"type":"string"},"path":{"type":"string"},"type":{"type":"string"},
"tags":{"type":"array","items":{"type":"string"}},
"links":{"type":"array","items":{"type":"object","properties":{"type":{"type":"string"},"to":{"type":"string"},"toTitle":{"type":"string"}},"required":["type"],"additionalProperties":false}}},
"required":["body"],"additionalProperties":false}}},
"required":["notes"],"additionalProperties":false}`,
			Output: reflect.TypeFor[batchReply](),
			Handle: createNotes,
		},
	}
}

func linkOne(ctx context.Context, e *Env, raw json.RawMessage) (any, error) {
	var a vault.LinkArgs
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	if err := required("from", a.From); err != nil {
		return nil, err
	}
	return e.Vault.Link(e.Caller(), a)
}

func linkMany(ctx context.Context, e *Env, raw json.RawMessage) (any, error) {
	var a struct {
		Links []vault.LinkArgs `json:"links"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	return e.Vault.LinkMany(e.Caller(), a.Links, "links")
}

func moveNote(ctx context.Context, e *Env, raw json.RawMessage) (any, error) {
	var a struct {
		Ref          string `json:"ref"`
		ToPath       string `json:"toPath"`
		VersionToken string `json:"versionToken"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	if err := required("ref", a.Ref); err != nil {
		return nil, err
	}
	return e.Vault.MoveNote(e.Caller(), a.Ref, a.ToPath, a.VersionToken)
}

func renameNote(ctx context.Context, e *Env, raw json.RawMessage) (any, error) {
	var a struct {
		Ref          string `json:"ref"`
		Title        string `json:"title"`
		KeepAlias    bool   `json:"keepAlias"`
		VersionToken string `json:"versionToken"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	if err := required("ref", a.Ref); err != nil {
		return nil, err
	}
	return e.Vault.RenameNote(e.Caller(), a.Ref, a.Title, a.VersionToken, a.KeepAlias)
}

func moveFolder(ctx context.Context, e *Env, raw json.RawMessage) (any, error) {
	var a struct {
		Project  string `json:"project"`
		Path     string `json:"path"`
		ToParent string `json:"toParent"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	if err := required("toParent", a.ToParent); err != nil {
		return nil, err
	}
	return e.Vault.MoveFolder(e.Caller(), a.Project, a.Path, a.ToParent)
}

func renameFolder(ctx context.Context, e *Env, raw json.RawMessage) (any, error) {
	var a struct {
		Project string `json:"project"`
		Path    string `json:"path"`
		Name    string `json:"name"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	return e.Vault.RenameFolder(e.Caller(), a.Project, a.Path, a.Name)
}

func renameProject(ctx context.Context, e *Env, raw json.RawMessage) (any, error) {
	var a struct {
		Project string `json:"project"`
		Handle  string `json:"handle"`
		Name    string `json:"name"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	if err := required("project", a.Project); err != nil {
		return nil, err
	}
	return e.Vault.RenameProject(e.Caller(), a.Project, a.Handle, a.Name)
}

func createNotes(ctx context.Context, e *Env, raw json.RawMessage) (any, error) {
	var a struct {
		Project string     `json:"project"`
		Notes   []noteArgs `json:"notes"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	notes := make([]vault.CreateArgs, len(a.Notes))
	for i, n := range a.Notes {
		notes[i] = n.vault()
	}
	res, err := e.Vault.CreateNotes(e.Caller(), a.Project, notes)
	if err != nil {
		return nil, err
	}
	return batchReply{Results: res}, nil
}

// batchReply is create_notes' answer: one result per note, in order.
type batchReply struct {
	Results []vault.BatchResult `json:"results"`
}

package mcptools

import (
	"context"
	"encoding/json"
	"reflect"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/vault"
)

// gatewayTools are the intent gateway's tools (toolset "gateway").
func gatewayTools() []*Tool {
	return []*Tool{
		{
			Name: "whoami", Toolset: ToolsetGateway, Title: "Who am I", ReadOnly: true, Idempotent: true,
			Description: "Who this token acts for: principal id, ceiling (read or write), project memberships with their access, toolsets, engine capabilities (vector search, trash, revisions) and the languages search understands (word matching: English and French; the builtin vectors: English; or the embedding model configured). Call it to know what you may do before trying.",
			Schema:      `{"type":"object","properties":{},"additionalProperties":false}`,
			Output:      reflect.TypeFor[whoamiReply](),
			Handle:      whoami,
		},
		{
			Name: "get_my_projects", Toolset: ToolsetGateway, Title: "List my projects", ReadOnly: true, Idempotent: true,
			Description: "Flat list of the projects this token can reach: handle (pass it as `project` exactly as given; do not derive it from folder names), display name, access and note count. The personal domain is implicit and not listed.",
			Schema:      `{"type":"object","properties":{},"additionalProperties":false}`,
			Output:      reflect.TypeFor[projectsReply](),
			Handle:      getMyProjects,
		},
		{
			Name: "list_notes", Toolset: ToolsetGateway, Title: "List a folder", ReadOnly: true, Idempotent: true,
			Description: "The `ls` of the knowledge base: the subfolders and notes directly inside one folder, folders first, in a stable order, paginated with a cursor. `project` picks the project, `path` the folder (pass back a path exactly as a previous answer gave it), `tag` keeps notes with that tag. Shared notes only; never private memory.",
			Schema: `{"type":"object","properties":{
"project":{"type":"string","description":"Project handle from get_my_projects."},
"path":{"type":"string","description":"Folder to list, as returned by an earlier list_notes; default: the project's folder."},
"tag":{"type":"string","description":"Only notes carrying this tag."},
"cursor":{"type":"string","description":"nextCursor from the previous page."},
"limit":{"type":"integer","minimum":1,"maximum":500,"description":"Entries per page (default 50)."}},
"additionalProperties":false}`,
			Output: reflect.TypeFor[vault.Listing](),
			Handle: listNotes,
		},
		{
			Name: "get_note", Toolset: ToolsetGateway, Title: "Read a note", ReadOnly: true, Idempotent: true,
			Description: "The whole note by ref (a note id, a path, or a wiki-ref such as [[Title]], a title or an alias): content, frontmatter, path, class, versionToken (needed to edit it safely) and provenance (who changed it last, how, when). `detailed: true` adds the outline (headings with levels), the links (outgoing: type, target, resolved note or attachment, or unresolved / ambiguous, and `obsidian`: whether Obsidian opens the same target, `unresolved` for a link only cairn resolves; incoming: from which note, with which type) and the recent revisions (commit, who, when). `revision` (a commit hash from those) reads an older version. A long note's content comes in parts (384 KiB each by default): `contentTotalBytes` and `nextContentOffset` say there is more, and `contentOffset` asks for it. A reply with more links or headings than fit lists the first ones and says how many there are (`linksTruncated`...).",
			Schema: `{"type":"object","properties":{
"ref":{"type":"string","description":"Note id, path, [[Title]], title or alias."},
"detailed":{"type":"boolean","description":"Also return the outline."},
"revision":{"type":"string","description":"A commit hash from the note's history, to read that version."},
"contentOffset":{"type":"integer","minimum":0,"description":"For a long note: the byte of the content to start from (nextContentOffset of the last part)."}},
"required":["ref"],"additionalProperties":false}`,
			Output: reflect.TypeFor[notePart](),
			Handle: getNote,
		},
		{
			Name: "create_note", Toolset: ToolsetGateway, Title: "Create a shared note", Idempotent: false,
			Description: "Create a new shared note (class user-doc) in a project. The body is Markdown and must start with a `# Title` line: the title and the file name come from it. `path` is the destination folder inside the project; `type` and `tags` go into the frontmatter, which the server writes; `links` adds typed edges at once ({type, to} for an existing note, {type, toTitle} for a title that may not exist yet). Search before writing to avoid duplicates. Returns id, path and versionToken.",
			Schema: `{"type":"object","properties":{
"project":{"type":"string","description":"Project handle from get_my_projects."},
"body":{"type":"string","description":"Markdown starting with '# Title'."},
"path":{"type":"string","description":"Destination folder inside the project."},
"type":{"type":"string","description":"Note type, one word (decision, meeting, spec, ...)."},
"tags":{"type":"array","items":{"type":"string"},"description":"Tags, one word each."},
"links":{"type":"array","description":"Typed edges from the new note.","items":{"type":"object","properties":{
"type":{"type":"string"},"to":{"type":"string"},"toTitle":{"type":"string"}},"required":["type"],"additionalProperties":false}}},
"required":["body"],"additionalProperties":false}`,
			Output: reflect.TypeFor[vault.Written](),
			Handle: createNote,
		},
		{
			Name: "edit_note", Toolset: ToolsetGateway, Title: "Edit a note", Destructive: true, Idempotent: false,
			Description: "Change a note by words, not positions. operation: append or prepend {content} (prepend goes after the title line), replace {content} (the whole body), replaceSection {heading, content} (what is under that heading), findReplace {find, content} (find must occur exactly once; empty content deletes it). versionToken must be the note's current one from get_note: if the note changed since, nothing is written and the error versionConflict gives the current token; read again and retry. The title line changes only through renaming.",
			Schema: `{"type":"object","properties":{
"ref":{"type":"string","description":"Note id, path, [[Title]], title or alias."},
"versionToken":{"type":"string","description":"The versionToken from get_note."},
"operation":{"type":"string","enum":["append","prepend","replace","replaceSection","findReplace"]},
"content":{"type":"string","description":"The new text."},
"heading":{"type":"string","description":"For replaceSection: the heading's text."},
"find":{"type":"string","description":"For findReplace: the exact excerpt, occurring once."}},
"required":["ref","versionToken","operation","content"],"additionalProperties":false}`,
			Output: reflect.TypeFor[vault.Written](),
			Handle: editNote,
		},
		{
			Name: "delete_note", Toolset: ToolsetGateway, Title: "Move a note to the trash", Destructive: true, Idempotent: false,
			Description: "Move a note to the trash: the only destructive action, reversible by design (a person restores or empties the trash; no tool does). With versionToken, the note is deleted only if it has not changed since.",
			Schema: `{"type":"object","properties":{
"ref":{"type":"string","description":"Note id, path, [[Title]], title or alias."},
"versionToken":{"type":"string","description":"Optional: delete only if the note is still at this version."}},
"required":["ref"],"additionalProperties":false}`,
			Output: reflect.TypeFor[vault.Deleted](),
			Handle: deleteNote,
		},
	}
}

type noArgs struct{}

// whoamiReply is whoami's answer.
type whoamiReply struct {
	Principal    string                `json:"principal"`
	Ceiling      string                `json:"ceiling"`
	Toolsets     []string              `json:"toolsets"`
	Memberships  []membership          `json:"memberships"`
	Capabilities capabilities          `json:"capabilities"`
	Languages    vault.SearchLanguages `json:"languages"`
	Notice       string                `json:"notice,omitempty"` // why a caller sees nothing (vault.WhyNothing)
}

type capabilities struct {
	Vector    bool `json:"vector"`
	Trash     bool `json:"trash"`
	Revisions bool `json:"revisions"`
}

// projectsReply is get_my_projects' answer.
type projectsReply struct {
	Projects []vault.ProjectAccess `json:"projects"`
}

type membership struct {
	Project string `json:"project"`
	Name    string `json:"name"`
	Access  string `json:"access"`
}

func whoami(ctx context.Context, e *Env, raw json.RawMessage) (any, error) {
	if err := decodeArgs(raw, &noArgs{}); err != nil {
		return nil, err
	}
	ps, err := e.Vault.Projects(e.Caller())
	if err != nil {
		return nil, err
	}
	ms := []membership{}
	for _, p := range ps {
		ms = append(ms, membership{Project: p.Handle, Name: p.Name, Access: p.Access})
	}
	out := whoamiReply{
		Principal:   e.Who.Principal,
		Ceiling:     e.Who.Ceiling.String(),
		Toolsets:    e.Who.Toolsets,
		Memberships: ms,
		Capabilities: capabilities{
			Vector:    e.Vault.SemanticSearch(),
			Trash:     true,
			Revisions: true,
		},
		Languages: e.Vault.Languages(),
	}
	if len(ps) == 0 {
		why, err := e.Vault.WhyNothing(e.Caller())
		if err != nil {
			return nil, err
		}
		out.Notice = why
	}
	return out, nil
}

func getMyProjects(ctx context.Context, e *Env, raw json.RawMessage) (any, error) {
	if err := decodeArgs(raw, &noArgs{}); err != nil {
		return nil, err
	}
	ps, err := e.Vault.Projects(e.Caller())
	if err != nil {
		return nil, err
	}
	if ps == nil {
		ps = []vault.ProjectAccess{}
	}
	return projectsReply{Projects: ps}, nil
}

func listNotes(ctx context.Context, e *Env, raw json.RawMessage) (any, error) {
	var a struct {
		Project string `json:"project"`
		Path    string `json:"path"`
		Tag     string `json:"tag"`
		Cursor  string `json:"cursor"`
		Limit   *int   `json:"limit"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	limit, err := optionalCount("limit", a.Limit, 1, vault.MaxListLimit)
	if err != nil {
		return nil, err
	}
	return fitPage(e, limit, func(limit int) (*vault.Listing, error) {
		return e.Vault.ListNotes(e.Caller(), vault.ListArgs{Project: a.Project, Path: a.Path, Tag: a.Tag, Cursor: a.Cursor, Limit: limit})
	})
}

func getNote(ctx context.Context, e *Env, raw json.RawMessage) (any, error) {
	var a struct {
		Ref           string `json:"ref"`
		Detailed      bool   `json:"detailed"`
		Revision      string `json:"revision"`
		ContentOffset *int   `json:"contentOffset"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	if err := required("ref", a.Ref); err != nil {
		return nil, err
	}
	offset := 0
	if a.ContentOffset != nil {
		if offset = *a.ContentOffset; offset < 0 {
			return nil, argError("contentOffset", "is %d; it counts bytes from 0", offset)
		}
	}
	n, err := e.Vault.GetNote(e.Caller(), a.Ref, a.Detailed, a.Revision)
	if err != nil {
		return nil, err
	}
	return pageContent(n, offset, e.MaxReply*3/8)
}

// notePart is a note with its content in parts (get_note's contentOffset).
type notePart struct {
	*vault.NoteView
	ContentOffset     int  `json:"contentOffset,omitempty"`
	ContentTotalBytes int  `json:"contentTotalBytes,omitempty"`
	NextContentOffset *int `json:"nextContentOffset,omitempty"`
}

// pageContent keeps window bytes of n's content from offset (both moved
// back to the start of a character): the whole note when it fits.
func pageContent(n *vault.NoteView, offset, window int) (any, error) {
	total := len(n.Content)
	if offset == 0 && total <= window {
		return n, nil
	}
	if offset > total {
		return nil, argError("contentOffset", "is %d; the content has %d bytes", offset, total)
	}
	for offset > 0 && offset < total && !utf8.RuneStart(n.Content[offset]) {
		offset--
	}
	end := min(total, offset+window)
	for end > offset && end < total && !utf8.RuneStart(n.Content[end]) {
		end--
	}
	part := &notePart{NoteView: n, ContentOffset: offset, ContentTotalBytes: total}
	n.Content = n.Content[offset:end]
	if end < total {
		part.NextContentOffset = &end
	}
	return part, nil
}

// noteArgs are one note's arguments, for create_note and create_notes.
type noteArgs struct {
	Project string           `json:"project"`
	Body    string           `json:"body"`
	Path    string           `json:"path"`
	Type    string           `json:"type"`
	Tags    []string         `json:"tags"`
	Links   []vault.LinkSpec `json:"links"`
}

func (a noteArgs) vault() vault.CreateArgs {
	return vault.CreateArgs{Project: a.Project, Body: a.Body, Path: a.Path, Type: a.Type, Tags: a.Tags, Links: a.Links}
}

func createNote(ctx context.Context, e *Env, raw json.RawMessage) (any, error) {
	var a noteArgs
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	if err := required("body", a.Body); err != nil {
		return nil, err
	}
	return e.Vault.CreateNote(e.Caller(), a.vault())
}

func editNote(ctx context.Context, e *Env, raw json.RawMessage) (any, error) {
	var a struct {
		Ref          string  `json:"ref"`
		VersionToken string  `json:"versionToken"`
		Operation    string  `json:"operation"`
		Content      *string `json:"content"`
		Heading      string  `json:"heading"`
		Find         string  `json:"find"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	for _, r := range [][2]string{{"ref", a.Ref}, {"versionToken", a.VersionToken}, {"operation", a.Operation}} {
		if err := required(r[0], r[1]); err != nil {
			return nil, err
		}
	}
	return e.Vault.EditNote(e.Caller(), vault.EditArgs{Ref: a.Ref, VersionToken: a.VersionToken, Operation: a.Operation, Content: a.Content, Heading: a.Heading, Find: a.Find})
}

func deleteNote(ctx context.Context, e *Env, raw json.RawMessage) (any, error) {
	var a struct {
		Ref          string `json:"ref"`
		VersionToken string `json:"versionToken"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	if err := required("ref", a.Ref); err != nil {
		return nil, err
	}
	return e.Vault.DeleteNote(e.Caller(), a.Ref, a.VersionToken)
}

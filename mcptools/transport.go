package mcptools

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/server"
)

// ServeStdio serves one client over stdin/stdout. mcp-go builds one context
// for the whole session, so who is asked for the identity at every tool
// listing and call: a token revoked while the session runs stops working at
// once (who then fails: no tool is listed or callable).
func ServeStdio(ctx context.Context, s *server.MCPServer, who func() (Identity, error), in io.Reader, out io.Writer) error {
	stdio := server.NewStdioServer(s)
	stdio.SetContextFunc(func(ctx context.Context) context.Context { return WithIdentitySource(ctx, who) })
	err := stdio.Listen(ctx, in, out)
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// HTTPOptions configure the Streamable HTTP handler.
type HTTPOptions struct {
	// NoAuth serves every request as this identity without a token (a
	// test mode; the command line allows it on loopback addresses only).
	NoAuth *Identity
	// ResourceMetadataURL, when set, is advertised in WWW-Authenticate.
	ResourceMetadataURL string
}

// HTTPHandler serves MCP at /mcp. Every request must carry
// `Authorization: Bearer <token>`; without a valid one the answer is 401
// with WWW-Authenticate, before mcp-go sees the request. The identity is
// resolved per request (tokens revoked meanwhile stop working at once) and
// put into the request's context for the tool filter and the handlers.
// mcp-go's DNS-rebinding protection stays on.
func HTTPHandler(s *server.MCPServer, tokens *TokenStore, o HTTPOptions) http.Handler {
	streamable := server.NewStreamableHTTPServer(s,
		server.WithEndpointPath("/mcp"),
		server.WithHTTPContextFunc(func(ctx context.Context, r *http.Request) context.Context {
			if id, ok := IdentityFrom(r.Context()); ok {
				return WithIdentity(ctx, id)
			}
			return ctx
		}),
	)
	mux := http.NewServeMux()
	mux.Handle("/mcp", authenticate(streamable, tokens, o))
	// Each family also at its own path, for clients written for a server
	// of that family alone: the token's toolsets narrowed to that one.
	for _, family := range []string{ToolsetTreaisure, ToolsetHindsight} {
		path := "/" + family + "/mcp"
		only := server.NewStreamableHTTPServer(s,
			server.WithEndpointPath(path),
			server.WithHTTPContextFunc(func(ctx context.Context, r *http.Request) context.Context {
				if id, ok := IdentityFrom(r.Context()); ok {
					id.Toolsets = slices.DeleteFunc(slices.Clone(id.Toolsets), func(t string) bool { return t != family })
					return WithIdentity(ctx, id)
				}
				return ctx
			}),
		)
		mux.Handle(path, authenticate(only, tokens, o))
	}
	return mux
}

func authenticate(next http.Handler, tokens *TokenStore, o HTTPOptions) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o.NoAuth != nil {
			next.ServeHTTP(w, r.WithContext(WithIdentity(r.Context(), *o.NoAuth)))
			return
		}
		challenge := `Bearer realm="cairn"`
		if o.ResourceMetadataURL != "" {
			challenge += `, resource_metadata="` + o.ResourceMetadataURL + `"`
		}
		h := r.Header.Get("Authorization")
		scheme, token, ok := strings.Cut(h, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
			w.Header().Set("WWW-Authenticate", challenge)
			http.Error(w, "401 unauthorized: send Authorization: Bearer <token> (cairn token create makes one)", http.StatusUnauthorized)
			return
		}
		rec, err := tokens.Verify(strings.TrimSpace(token))
		if err != nil {
			w.Header().Set("WWW-Authenticate", challenge+`, error="invalid_token"`)
			http.Error(w, "401 unauthorized: invalid or revoked token", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r.WithContext(WithIdentity(r.Context(), IdentityOf(rec))))
	})
}

/**
 * The status-page room of src/mcp: the read-only page `gatefs serve --http` shows at `/`
 * behind the same token as MCP (workspaces, the lander queue, the run log's tail, with a live
 * feed), its sign-in and its JSON form. The HTTP door hands it every request for one of its
 * paths (`isStatusPath`) and `StatusRoutes` answers it.
 */
export { isStatusPath, StatusRoutes } from './status-routes.js';

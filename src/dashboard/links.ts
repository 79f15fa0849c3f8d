// Links into the owners' dashboard (web/, hash routes): the MCP server's approval link and the
// notifications' links send owners to the same pages.

/** A contract's page, where its owner reads the terms and approves, funds or releases. */
export const dashboardContractUrl = (publicUrl: string, contractId: string) => `${publicUrl}/#/contracts/${encodeURIComponent(contractId)}`;

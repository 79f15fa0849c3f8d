// Links into the owners' dashboard (web/, hash routes): the MCP server's approval link and the
// notifications' links send owners to the same pages (web/src/router.ts has the routes).

/** A contract's page, where its owner reads the terms and approves, funds or releases; it shows the reviews too. */
export const dashboardContractUrl = (publicUrl: string, contractId: string) => `${publicUrl}/#/contracts/${encodeURIComponent(contractId)}`;

/** A dispute's page: the dispute, its evidence, the recommendation and the outcomes accepted. */
export const dashboardDisputeUrl = (publicUrl: string, disputeId: string) => `${publicUrl}/#/disputes/${encodeURIComponent(disputeId)}`;

/** A webhook endpoint's page: its state, its deliveries, enabling it again. */
export const dashboardWebhookUrl = (publicUrl: string, endpointId: string) => `${publicUrl}/#/webhooks/${encodeURIComponent(endpointId)}`;

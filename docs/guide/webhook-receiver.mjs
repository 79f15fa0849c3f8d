// A webhook receiver that verifies gigmarket's signatures with the Standard Webhooks library
// (npm i standardwebhooks). Run it with the endpoint's secret and a port:
//   GIGMARKET_WEBHOOK_SECRET=whsec_… PORT=8080 node webhook-receiver.mjs
import http from 'node:http';
import { Webhook } from 'standardwebhooks';

const webhook = new Webhook(process.env.GIGMARKET_WEBHOOK_SECRET); // whsec_…
http
  .createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    try {
      // The raw body, before any JSON parsing; throws on a wrong signature or a timestamp 5 minutes off.
      const event = webhook.verify(Buffer.concat(chunks), req.headers);
      console.log('verified', event.type, req.headers['webhook-id']); // deduplicate on webhook-id
      res.writeHead(204).end();
    } catch {
      console.log('refused: bad signature');
      res.writeHead(400).end();
    }
  })
  .listen(Number(process.env.PORT ?? 8080), '127.0.0.1', function () {
    console.log(`listening on http://127.0.0.1:${this.address().port}`);
  });

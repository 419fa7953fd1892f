/** Usage texts, kept apart from the commands so that help loads none of them. */

export const MERCHANT_USAGE = `paygate merchant create --name NAME [--timezone Asia/Hong_Kong] [--settlement-hour 23] [--json]
paygate merchant list [--json]`;

export const APP_USAGE = `paygate app create --merchant ID --public-key FILE.pem [--allow-ip CIDR]... [--json]
paygate app list --merchant ID [--json]
paygate app disable APP_ID [--json]
paygate app enable APP_ID [--json]
paygate app webhook APP_ID URL [--json]      send every event of the app's merchant to URL as well
paygate app webhook APP_ID --clear [--json]`;

export const WEBHOOKS_USAGE = `paygate webhooks list [--event EVENT_ID] [--limit 50] [--json]
paygate webhooks redeliver EVENT_ID [--json]`;

export const CALL_USAGE = `paygate call METHOD PATH [JSON | @FILE | -] [--app APP_ID] [--key PRIVATE_KEY.pem]
             [--base-url URL] [--idempotency-key KEY] [--include] [--json]
Signs the request (with the demo app and key of the data folder unless told otherwise) and prints the reply.`;

export const USAGE = `paygate: a self-hostable payments platform

paygate serve [--json]          run the server (what npm start runs)
paygate migrate [--json]        apply database migrations
${MERCHANT_USAGE}
${APP_USAGE}
${WEBHOOKS_USAGE}
${CALL_USAGE}

Configuration comes from the environment (docs/configuration.md).`;

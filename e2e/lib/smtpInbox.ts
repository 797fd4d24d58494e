/**
 * A real SMTP server on 127.0.0.1 for the end-to-end suite (nodemailer's smtp-server, parsed with mailparser): it
 * takes every message n8n's Send Email node sends (plain SMTP, no TLS, any or no login) and keeps its envelope,
 * subject and its text and HTML parts. It refuses the recipients in `refused` (RCPT TO answered 550), as a mail
 * server refuses an address it does not know; `refused` may give each address its reply code instead (451: try later).
 */
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

import type { N8nRest } from '../../dev/n8n/n8n';

export interface ReceivedEmail {
	from: string;
	to: string[];
	subject: string;
	text: string;
	html: string;
}

export interface SmtpInbox {
	host: string;
	port: number;
	received(): ReceivedEmail[];
	close(): Promise<void>;
}

export const REFUSAL = 'Recipient address rejected: user unknown';

export async function startSmtpInbox({ refused = [] }: { refused?: string[] | Record<string, number> } = {}): Promise<SmtpInbox> {
	const replies: Record<string, number> = Array.isArray(refused) ? Object.fromEntries(refused.map((address) => [address, 550])) : refused;
	const received: ReceivedEmail[] = [];
	const server = new SMTPServer({
		secure: false,
		disabledCommands: ['STARTTLS'],
		authOptional: true,
		// n8n's SMTP credential may carry a user and password: any is taken.
		onAuth: (auth, _smtpTransaction, callback) => callback(null, { user: auth.username ?? 'n8n' }),
		onRcptTo: (address, _smtpTransaction, callback) => {
			const code = replies[address.address];
			if (code === undefined) return callback();
			callback(Object.assign(new Error(`<${address.address}>: ${code >= 500 ? REFUSAL : 'Mailbox busy, try again later'}`), { responseCode: code }));
		},
		onData: (stream, smtp, callback) => {
			simpleParser(stream).then(
				(mail) => {
					received.push({
						from: smtp.envelope.mailFrom === false ? '' : smtp.envelope.mailFrom.address,
						to: smtp.envelope.rcptTo.map((recipient) => recipient.address),
						subject: mail.subject ?? '',
						text: mail.text ?? '',
						html: typeof mail.html === 'string' ? mail.html : '',
					});
					callback();
				},
				(error: Error) => callback(error),
			);
		},
		logger: false,
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => resolve());
	});
	const address = server.server.address();
	if (address === null || typeof address === 'string') throw new Error('the SMTP server has no port');
	return {
		host: '127.0.0.1',
		port: address.port,
		received: () => [...received],
		close: async () => await new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

/** An SMTP credential in n8n pointing at `inbox`, as a user makes one for Send Email: plain SMTP, no login. */
export async function smtpCredentialFor(rest: N8nRest, inbox: Pick<SmtpInbox, 'host' | 'port'>, name: string): Promise<{ id: string; name: string }> {
	return await rest.call<{ id: string; name: string }>('POST', '/rest/credentials', {
		name,
		type: 'smtp',
		data: { user: '', password: '', host: inbox.host, port: inbox.port, secure: false, disableStartTls: true },
	});
}

/**
 * A real SMTP server on 127.0.0.1 for the end-to-end suite: it takes every message n8n's Send Email node sends
 * (plain SMTP, no TLS, any or no login) and keeps its subject and its text and HTML parts, decoded.
 */
import { createServer, type Socket } from 'node:net';

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

export async function startSmtpInbox(): Promise<SmtpInbox> {
	const received: ReceivedEmail[] = [];
	const sockets = new Set<Socket>();
	const server = createServer((socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
		socket.setEncoding('utf8');
		const reply = (line: string) => socket.write(`${line}\r\n`);
		let envelope = { from: '', to: [] as string[] };
		let data: string[] | undefined;
		let pending = '';
		let authStep = 0;
		reply('220 127.0.0.1 ESMTP');
		socket.on('data', (chunk: string) => {
			pending += chunk;
			for (let end = pending.indexOf('\r\n'); end >= 0; end = pending.indexOf('\r\n')) {
				const line = pending.slice(0, end);
				pending = pending.slice(end + 2);
				if (data) {
					if (line !== '.') data.push(line.startsWith('..') ? line.slice(1) : line);
					else {
						received.push({ ...envelope, ...parseMessage(data.join('\r\n')) });
						data = undefined;
						envelope = { from: '', to: [] };
						reply('250 OK: queued');
					}
					continue;
				}
				if (authStep > 0) {
					authStep = authStep === 2 ? (reply('334 UGFzc3dvcmQ6'), 1) : (reply('235 Authentication successful'), 0);
					continue;
				}
				const verb = line.slice(0, 4).toUpperCase();
				if (verb === 'EHLO') reply('250-127.0.0.1\r\n250-AUTH PLAIN LOGIN\r\n250 8BITMIME');
				else if (verb === 'HELO' || verb === 'RSET' || verb === 'NOOP') reply('250 OK');
				else if (verb === 'MAIL') (envelope.from = /<(.*)>/.exec(line)?.[1] ?? ''), reply('250 OK');
				else if (verb === 'RCPT') envelope.to.push(/<(.*)>/.exec(line)?.[1] ?? ''), reply('250 OK');
				else if (verb === 'DATA') (data = []), reply('354 End data with <CR><LF>.<CR><LF>');
				else if (verb === 'AUTH') {
					if (/^AUTH PLAIN \S+/i.test(line)) reply('235 Authentication successful');
					else if (/^AUTH LOGIN \S+/i.test(line)) (authStep = 1), reply('334 UGFzc3dvcmQ6');
					else (authStep = /^AUTH LOGIN/i.test(line) ? 2 : 1), reply(/^AUTH LOGIN/i.test(line) ? '334 VXNlcm5hbWU6' : '334 ');
				} else if (verb === 'QUIT') reply('221 Bye'), socket.end();
				else reply('502 Command not implemented');
			}
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const address = server.address();
	if (address === null || typeof address === 'string') throw new Error('the SMTP server has no port');
	return {
		host: '127.0.0.1',
		port: address.port,
		received: () => [...received],
		close: async () => {
			for (const socket of sockets) socket.destroy();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

/** A MIME message's headers (unfolded, names in lower case) and body. */
function split(part: string): { headers: Map<string, string>; body: string } {
	const end = part.indexOf('\r\n\r\n');
	const head = end < 0 ? part : part.slice(0, end);
	const headers = new Map<string, string>();
	for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
		const colon = line.indexOf(':');
		if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
	}
	return { headers, body: end < 0 ? '' : part.slice(end + 4) };
}

function decodeBody(body: string, encoding = ''): string {
	if (/base64/i.test(encoding)) return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
	if (/quoted-printable/i.test(encoding)) {
		const bytes = body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, hex: string) => `%${hex}`);
		return decodeURIComponent(bytes.replace(/%(?![0-9A-F]{2})/gi, '%25'));
	}
	return body;
}

/** An RFC 2047 encoded header (`=?UTF-8?Q?…?=` or `?B?`) as text. */
function decodeHeader(value: string): string {
	return value.replace(/\?=\s+=\?/g, '?==?').replace(/=\?([^?]+)\?([QB])\?([^?]*)\?=/gi, (_, _charset: string, kind: string, text: string) =>
		kind.toUpperCase() === 'B' ? Buffer.from(text, 'base64').toString('utf8') : decodeBody(text.replace(/_/g, ' '), 'quoted-printable'),
	);
}

function parseMessage(raw: string): Pick<ReceivedEmail, 'subject' | 'text' | 'html'> {
	const message = split(raw);
	const found = { text: '', html: '' };
	const walk = ({ headers, body }: { headers: Map<string, string>; body: string }) => {
		const type = headers.get('content-type') ?? 'text/plain';
		const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
		if (/^multipart\//i.test(type) && boundary) {
			for (const part of body.split(`--${boundary}`).slice(1, -1)) walk(split(part.replace(/^\r\n/, '').replace(/\r\n$/, '')));
		} else if (/^text\/html/i.test(type)) found.html = decodeBody(body, headers.get('content-transfer-encoding'));
		else if (/^text\/plain/i.test(type)) found.text = decodeBody(body, headers.get('content-transfer-encoding'));
	};
	walk(message);
	return { subject: decodeHeader(message.headers.get('subject') ?? ''), ...found };
}

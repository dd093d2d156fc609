import type { EntityManager } from '@mikro-orm/postgresql';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import { OAuthClientSchema } from './oauth.entity.js';
import { nativeQuery } from '../db/native.js';
import { isMetadataDocumentClientId, type ClientMetadataDocuments } from './client-metadata-document.js';
import { applyRegistrationPolicy } from './registration-policy.js';

/** Client ids are the UUIDs the registration handler generates; anything else is unknown without a query. */
const CLIENT_ID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/**
 * Clients that never completed a grant (no code exchanged, no refresh token) are deleted this long
 * after registering: anyone may register, so what nobody used is not kept.
 */
export const UNUSED_CLIENT_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Registered clients live in PostgreSQL: any app node can serve any step of the flow. A client
 * known by its metadata document is fetched (src/oauth/client-metadata-document.ts) and kept as a
 * row too, so its grants and tokens refer to it as a registered client's do.
 */
export class PgClientsStore implements OAuthRegisteredClientsStore {
  constructor(
    private readonly em: EntityManager,
    private readonly documents: ClientMetadataDocuments,
  ) {}

  async getClient(clientId: string): Promise<OAuthClientInformationFull | undefined> {
    if (isMetadataDocumentClientId(clientId)) return this.documentClient(clientId);
    if (typeof clientId !== 'string' || !CLIENT_ID_RE.test(clientId)) return undefined;
    const row = await this.em.fork().findOne(OAuthClientSchema, { id: clientId });
    return row ? (row.metadata as unknown as OAuthClientInformationFull) : undefined;
  }

  async registerClient(
    client: Omit<OAuthClientInformationFull, 'client_id' | 'client_id_issued_at'>,
  ): Promise<OAuthClientInformationFull> {
    // The SDK handler generates the id before calling us (clientIdGeneration is on).
    const full = applyRegistrationPolicy(client as OAuthClientInformationFull);
    if (!CLIENT_ID_RE.test(full.client_id))
      throw new Error('registration handler did not assign a client id');
    const em = this.em.fork();
    await deleteUnusedClients(em, new Date(Date.now() - UNUSED_CLIENT_TTL_MS));
    em.create(OAuthClientSchema, {
      id: full.client_id,
      clientName: full.client_name ?? null,
      redirectUris: [...full.redirect_uris],
      metadata: full,
    });
    await em.flush();
    return full;
  }

  /**
   * The client its metadata document describes, its row written when the document was fetched
   * (and put back if an unused-client sweep removed it while the document was cached).
   */
  private async documentClient(clientId: string): Promise<OAuthClientInformationFull> {
    const { client, fetched } = await this.documents.resolve(clientId);
    const query = await nativeQuery(this.em.fork());
    await query(
      `insert into oauth_client (id, client_name, redirect_uris, metadata, created_at)
       values ($1, $2, $3, $4, now())
       on conflict (id) do ${
         fetched
           ? `update set client_name = excluded.client_name, redirect_uris = excluded.redirect_uris,
                         metadata = excluded.metadata
               where oauth_client.metadata is distinct from excluded.metadata`
           : 'nothing'
       }`,
      [clientId, client.client_name ?? null, client.redirect_uris, JSON.stringify(client)],
    );
    return client;
  }
}

/** Deletes the clients registered before `before` that never completed a grant (their pending requests go with them). */
export async function deleteUnusedClients(em: EntityManager, before: Date): Promise<number> {
  const query = await nativeQuery(em);
  const rows = await query<{ id: string }>(
    `delete from oauth_client c
      where c.created_at < $1
        and not exists (select 1 from oauth_authorization a where a.client_id = c.id and a.exchanged_at is not null)
        and not exists (select 1 from oauth_refresh_token r where r.client_id = c.id)
      returning c.id`,
    [before],
  );
  return rows.length;
}

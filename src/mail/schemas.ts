import { Type, type TSchema } from '@sinclair/typebox';
import { Obj } from '../platform/http/schemas';
import { MAIL_KINDS, MAIL_KIND_TRIGGERS } from './kinds';

const DESCRIPTION =
  'Which mails the service sends to the store\'s buyers, per kind (all on unless the store turned a kind off; a store that mails its buyers itself turns kinds off). ' +
  'A kind turned off is not written when its event happens. Test mode never sends: its mails are kept and shown in the dashboard\'s mailbox. Kinds: ' +
  MAIL_KINDS.map((k) => `\`${k}\` (${MAIL_KIND_TRIGGERS[k]})`).join('; ') + '.';

const props = (optional: boolean) =>
  Object.fromEntries(MAIL_KINDS.map((k) => [k, optional ? Type.Optional(Type.Boolean()) : Type.Boolean()])) as Record<string, TSchema>;

export const BuyerMailsSchema = Obj(props(false), { title: 'BuyerMails', description: DESCRIPTION });
export const BuyerMailsPatch = Obj(props(true), { title: 'BuyerMailsUpdate', description: 'Kinds to turn on (true) or off (false); kinds left out stay as they are. ' + DESCRIPTION });

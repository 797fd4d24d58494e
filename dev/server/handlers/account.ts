import { accountRecord, single } from '../presenters';
import { json } from '../responses';
import { Handler } from './context';

export const showAccount: Handler = ({ user, settings }) => json(200, single(accountRecord(user, settings.maxReportsPerUser)));

import { reportIdLocator } from '../../shared/descriptions';
import { updateDisplayOptions } from '../../shared/displayOptions';

const showOnlyForReportGet = { resource: ['report'], operation: ['get'] };

export const reportGetDescription = updateDisplayOptions({ show: showOnlyForReportGet }, [reportIdLocator]);

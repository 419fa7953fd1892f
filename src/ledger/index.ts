export { balanceIn, lockAvailable, topUp } from './balances.js';
export { ledgerModule } from './module.js';
export type { MoneyMovement, PayoutEntryType } from './post.js';
export {
  postCardHold,
  postCardRefund,
  postCardRelease,
  postCardSettlement,
  postCardWithdrawal,
  postPayment,
  postPayoutStep,
  postRefund,
  postSettlements,
  postVoid,
} from './post.js';
export { TopUpBody } from './schemas.js';

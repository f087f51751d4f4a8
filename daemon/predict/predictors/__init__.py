"""The predictors, one module each; `daemon.predict.PREDICTORS` is the one list that runs them."""

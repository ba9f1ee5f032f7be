mod gate;
pub use gate::*;
mod load;
pub use load::*;
mod rules;
pub use rules::*;
mod suite;
pub use suite::*;

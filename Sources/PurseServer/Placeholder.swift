import Hummingbird
import Metrics
import ServiceLifecycle
